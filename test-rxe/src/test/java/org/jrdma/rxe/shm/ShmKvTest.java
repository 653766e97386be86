package org.jrdma.rxe;

import org.junit.jupiter.api.Tag;

/** Push/pull over shared memory between two contexts on this host (runs on the host in mvn verify). */
@Tag("shm")
class ShmKvTest extends KvContract {
    @Override
    Fabric fabric() {
        return Fabric.SHM;
    }
}
