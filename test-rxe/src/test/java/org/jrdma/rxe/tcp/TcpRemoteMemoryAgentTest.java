package org.jrdma.rxe;

import org.junit.jupiter.api.Tag;

/** The RemoteMemoryAgent contract over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpRemoteMemoryAgentTest extends RemoteMemoryAgentContract {
    @Override
    Fabric fabric() {
        return Fabric.TCP;
    }
}
