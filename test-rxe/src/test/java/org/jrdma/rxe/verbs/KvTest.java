package org.jrdma.rxe;

import org.junit.jupiter.api.extension.ExtendWith;

/** Push/pull over verbs (Soft-RoCE in the VM). */
@ExtendWith(ResourceBaseline.class) // the faults leave no resource behind
class KvTest extends KvContract {
    @Override
    Fabric fabric() {
        return Fabric.VERBS;
    }
}
