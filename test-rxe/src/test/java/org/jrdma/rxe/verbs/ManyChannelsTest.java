package org.jrdma.rxe.verbs;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.ManyChannelsContract;

/**
 * A thousand channels over verbs in one context (Soft-RoCE in the VM), at the default queue depth: a
 * queue pair and a registered receive ring each, on both sides. Each channel takes 2 x 128 completion
 * queue entries and a Soft-RoCE completion queue holds at most 32,767 (max_cqe), 127 channels: the
 * context spreads them over several completion queues (one alone stopped at the 128th channel).
 */
class ManyChannelsTest extends ManyChannelsContract {
    @Override
    protected Fabric fabric() {
        return Fabric.VERBS;
    }

    @Override
    protected int channels() {
        return 1_000;
    }
}
