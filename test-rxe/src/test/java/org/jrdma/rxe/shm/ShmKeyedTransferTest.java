package org.jrdma.rxe.shm;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.KeyedTransferContract;
import org.junit.jupiter.api.Tag;

/** Keyed transfers over shared memory between two contexts on this host (runs on the host in mvn verify). */
@Tag("shm")
class ShmKeyedTransferTest extends KeyedTransferContract {
    @Override
    protected Fabric fabric() {
        return Fabric.SHM;
    }
}
