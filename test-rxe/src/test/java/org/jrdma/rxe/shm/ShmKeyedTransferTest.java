package org.jrdma.rxe;

import org.junit.jupiter.api.Tag;

/** Keyed transfers over shared memory between two contexts on this host (runs on the host in mvn verify). */
@Tag("shm")
class ShmKeyedTransferTest extends KeyedTransferContract {
    @Override
    Fabric fabric() {
        return Fabric.SHM;
    }
}
