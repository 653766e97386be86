package org.jrdma.rxe.tcp;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.OneSidedContract;
import org.junit.jupiter.api.Tag;

/** The OneSided contract over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpOneSidedTest extends OneSidedContract {
    @Override
    protected Fabric fabric() {
        return Fabric.TCP;
    }
}
