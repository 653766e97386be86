package org.jrdma.rxe;

import org.junit.jupiter.api.Tag;

/** The ChannelFailure contract over shared memory between two contexts on this host (runs on the host in mvn verify). */
@Tag("shm")
class ShmChannelFailureTest extends ChannelFailureContract {
    @Override
    Fabric fabric() {
        return Fabric.SHM;
    }
}
