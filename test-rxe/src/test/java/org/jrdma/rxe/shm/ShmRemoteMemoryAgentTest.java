package org.jrdma.rxe.shm;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.RemoteMemoryAgentContract;
import org.junit.jupiter.api.Tag;

/** The RemoteMemoryAgent contract over shared memory between two contexts on this host (runs on the host in mvn verify). */
@Tag("shm")
class ShmRemoteMemoryAgentTest extends RemoteMemoryAgentContract {
    @Override
    protected Fabric fabric() {
        return Fabric.SHM;
    }
}
