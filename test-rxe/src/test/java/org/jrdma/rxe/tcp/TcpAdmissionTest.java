package org.jrdma.rxe.tcp;

import org.jrdma.rxe.contract.AdmissionContract;
import org.jrdma.rxe.contract.Fabric;
import org.junit.jupiter.api.Tag;

/** The Admission contract over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpAdmissionTest extends AdmissionContract {
    @Override
    protected Fabric fabric() {
        return Fabric.TCP;
    }
}
