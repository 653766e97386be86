package org.jrdma.rxe.verbs;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.ManyChannelsContract;

/**
 * A thousand channels over verbs in one context (Soft-RoCE in the VM): a queue pair and a registered
 * receive ring each, on both sides. All of a context's channels complete into its one completion
 * queue, 2 x queueDepth entries each, and Soft-RoCE's holds at most 32,767 (max_cqe): at the default
 * depth of 128 a context takes 127 channels, at 16 a thousand.
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

    @Override
    protected int queueDepth() {
        return 16;
    }
}
