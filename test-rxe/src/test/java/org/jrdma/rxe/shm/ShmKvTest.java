package org.jrdma.rxe.shm;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.KvContract;
import org.junit.jupiter.api.Tag;

/** Push/pull over shared memory between two contexts on this host (runs on the host in mvn verify). */
@Tag("shm")
class ShmKvTest extends KvContract {
    @Override
    protected Fabric fabric() {
        return Fabric.SHM;
    }
}
