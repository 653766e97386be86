package org.jrdma.rxe;

import org.junit.jupiter.api.extension.ExtendWith;

/** The ChannelFailure contract over verbs (Soft-RoCE in the VM). */
@ExtendWith(ResourceBaseline.class) // the fault leaves no resource behind
class ChannelFailureTest extends ChannelFailureContract {
    @Override
    Fabric fabric() {
        return Fabric.VERBS;
    }
}
