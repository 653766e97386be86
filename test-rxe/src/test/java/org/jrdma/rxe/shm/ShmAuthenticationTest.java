package org.jrdma.rxe.shm;

import org.jrdma.rxe.contract.AuthenticationContract;
import org.jrdma.rxe.contract.Fabric;
import org.junit.jupiter.api.Tag;

/** The Authentication contract over shared memory between two contexts on this host (runs on the host in mvn verify). */
@Tag("shm")
class ShmAuthenticationTest extends AuthenticationContract {
    @Override
    protected Fabric fabric() {
        return Fabric.SHM;
    }
}
