package org.jrdma.rxe.verbs;

import org.jrdma.rxe.contract.ChannelFailureContract;
import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.ResourceBaseline;
import org.junit.jupiter.api.extension.ExtendWith;

/** The ChannelFailure contract over verbs (Soft-RoCE in the VM). */
@ExtendWith(ResourceBaseline.class) // the fault leaves no resource behind
class ChannelFailureTest extends ChannelFailureContract {
    @Override
    protected Fabric fabric() {
        return Fabric.VERBS;
    }
}
