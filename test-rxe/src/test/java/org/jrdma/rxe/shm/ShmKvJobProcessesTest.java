package org.jrdma.rxe.shm;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.KvJobProcessesContract;
import org.junit.jupiter.api.Tag;

/** A push/pull job of one JVM per node, some killed, over the shared-memory transport (processes of this host; runs on the host in mvn verify). */
@Tag("shm")
class ShmKvJobProcessesTest extends KvJobProcessesContract {
    @Override
    protected Fabric fabric() {
        return Fabric.SHM;
    }
}
