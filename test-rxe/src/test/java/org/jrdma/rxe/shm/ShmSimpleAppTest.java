package org.jrdma.rxe.shm;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.SimpleAppContract;
import org.junit.jupiter.api.Tag;

/** ps-lite's SimpleApp over the shared-memory transport between two contexts on this host (runs on the host in mvn verify). */
@Tag("shm")
class ShmSimpleAppTest extends SimpleAppContract {
    @Override
    protected Fabric fabric() {
        return Fabric.SHM;
    }
}
