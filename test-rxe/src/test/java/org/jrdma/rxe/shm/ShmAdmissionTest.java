package org.jrdma.rxe.shm;

import org.jrdma.rxe.contract.AdmissionContract;
import org.jrdma.rxe.contract.Fabric;
import org.junit.jupiter.api.Tag;

/** The Admission contract over shared memory between two contexts on this host (runs on the host in mvn verify). */
@Tag("shm")
class ShmAdmissionTest extends AdmissionContract {
    @Override
    protected Fabric fabric() {
        return Fabric.SHM;
    }
}
