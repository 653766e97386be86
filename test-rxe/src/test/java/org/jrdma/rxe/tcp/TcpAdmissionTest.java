package org.jrdma.rxe;

import org.junit.jupiter.api.Tag;

/** The Admission contract over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpAdmissionTest extends AdmissionContract {
    @Override
    Fabric fabric() {
        return Fabric.TCP;
    }
}
