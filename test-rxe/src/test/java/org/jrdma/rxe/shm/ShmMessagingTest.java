package org.jrdma.rxe.shm;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.MessagingContract;
import org.junit.jupiter.api.Tag;

/** The Messaging contract over shared memory between two contexts on this host (runs on the host in mvn verify). */
@Tag("shm")
class ShmMessagingTest extends MessagingContract {
    @Override
    protected Fabric fabric() {
        return Fabric.SHM;
    }
}
