package org.jrdma.rxe;

import org.junit.jupiter.api.extension.ExtendWith;

/** Push/pull requests over verbs (Soft-RoCE in the VM). */
@ExtendWith(ResourceBaseline.class) // the faults leave no resource behind
class KvRequestTest extends KvRequestContract {
    @Override
    Fabric fabric() {
        return Fabric.VERBS;
    }
}
