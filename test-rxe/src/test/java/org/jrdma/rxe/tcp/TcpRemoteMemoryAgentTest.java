package org.jrdma.rxe.tcp;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.RemoteMemoryAgentContract;
import org.junit.jupiter.api.Tag;

/** The RemoteMemoryAgent contract over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpRemoteMemoryAgentTest extends RemoteMemoryAgentContract {
    @Override
    protected Fabric fabric() {
        return Fabric.TCP;
    }
}
