package org.jrdma.rxe.shm;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.OneSidedContract;
import org.junit.jupiter.api.Tag;

/** The OneSided contract over shared memory between two contexts on this host (runs on the host in mvn verify). */
@Tag("shm")
class ShmOneSidedTest extends OneSidedContract {
    @Override
    protected Fabric fabric() {
        return Fabric.SHM;
    }
}
