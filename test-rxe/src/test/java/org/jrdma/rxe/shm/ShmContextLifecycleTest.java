package org.jrdma.rxe.shm;

import org.jrdma.rxe.contract.ContextLifecycleContract;
import org.jrdma.rxe.contract.Fabric;
import org.junit.jupiter.api.Tag;

/** The ContextLifecycle contract over shared memory between two contexts on this host (runs on the host in mvn verify). */
@Tag("shm")
class ShmContextLifecycleTest extends ContextLifecycleContract {
    @Override
    protected Fabric fabric() {
        return Fabric.SHM;
    }
}
