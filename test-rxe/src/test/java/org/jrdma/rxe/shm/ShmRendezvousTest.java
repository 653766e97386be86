package org.jrdma.rxe.shm;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.RendezvousContract;
import org.junit.jupiter.api.Tag;

/** The Rendezvous contract over shared memory between two contexts on this host (runs on the host in mvn verify). */
@Tag("shm")
class ShmRendezvousTest extends RendezvousContract {
    @Override
    protected Fabric fabric() {
        return Fabric.SHM;
    }
}
