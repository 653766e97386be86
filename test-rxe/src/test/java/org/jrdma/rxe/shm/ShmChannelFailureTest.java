package org.jrdma.rxe.shm;

import org.jrdma.rxe.contract.ChannelFailureContract;
import org.jrdma.rxe.contract.Fabric;
import org.junit.jupiter.api.Tag;

/** The ChannelFailure contract over shared memory between two contexts on this host (runs on the host in mvn verify). */
@Tag("shm")
class ShmChannelFailureTest extends ChannelFailureContract {
    @Override
    protected Fabric fabric() {
        return Fabric.SHM;
    }
}
