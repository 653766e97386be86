package org.jrdma.rxe.shm;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.KvRequestContract;
import org.junit.jupiter.api.Tag;

/** Push/pull requests over shared memory between two contexts on this host (runs on the host in mvn verify). */
@Tag("shm")
class ShmKvRequestTest extends KvRequestContract {
    @Override
    protected Fabric fabric() {
        return Fabric.SHM;
    }
}
