package org.jrdma.rxe.shm;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.KvJobContract;
import org.junit.jupiter.api.Tag;

/** A push/pull job's start-up, barriers and failures over the shared-memory transport (two contexts of this host; runs on the host in mvn verify). */
@Tag("shm")
class ShmKvJobTest extends KvJobContract {
    @Override
    protected Fabric fabric() {
        return Fabric.SHM;
    }
}
