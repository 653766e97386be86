package org.jrdma.rxe.shm;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.KvHandlerContract;
import org.junit.jupiter.api.Tag;

/** A kv server's request handler over shared memory between two contexts on this host (runs on the host in mvn verify). */
@Tag("shm")
class ShmKvHandlerTest extends KvHandlerContract {
    @Override
    protected Fabric fabric() {
        return Fabric.SHM;
    }
}
