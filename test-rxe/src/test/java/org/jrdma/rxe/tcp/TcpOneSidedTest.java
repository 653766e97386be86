package org.jrdma.rxe;

import org.junit.jupiter.api.Tag;

/** The OneSided contract over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpOneSidedTest extends OneSidedContract {
    @Override
    Fabric fabric() {
        return Fabric.TCP;
    }
}
