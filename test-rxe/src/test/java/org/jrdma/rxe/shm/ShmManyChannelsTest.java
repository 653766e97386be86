package org.jrdma.rxe.shm;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.ManyChannelsContract;
import org.junit.jupiter.api.Tag;

/**
 * Two thousand channels over shared memory in one context (runs on the host in mvn verify). Fewer than
 * over TCP: the loop looks at every shared-memory channel's rings on every turn (docs/performance.md,
 * "Many channels").
 */
@Tag("shm")
class ShmManyChannelsTest extends ManyChannelsContract {
    @Override
    protected Fabric fabric() {
        return Fabric.SHM;
    }

    @Override
    protected int channels() {
        return 2_000;
    }
}
