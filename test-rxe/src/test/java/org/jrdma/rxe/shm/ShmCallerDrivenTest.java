package org.jrdma.rxe.shm;

import org.jrdma.rxe.contract.CallerDrivenContract;
import org.jrdma.rxe.contract.Fabric;
import org.junit.jupiter.api.Tag;

/** The caller-driven contract over shared memory (runs on the host in mvn verify). */
@Tag("shm")
class ShmCallerDrivenTest extends CallerDrivenContract {
    @Override
    protected Fabric fabric() {
        return Fabric.SHM;
    }
}
