package org.jrdma.rxe;

import org.junit.jupiter.api.Tag;

/** The OneSided contract over shared memory between two contexts on this host (runs on the host in mvn verify). */
@Tag("shm")
class ShmOneSidedTest extends OneSidedContract {
    @Override
    Fabric fabric() {
        return Fabric.SHM;
    }
}
