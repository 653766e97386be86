package org.jrdma.rxe;

import org.junit.jupiter.api.extension.ExtendWith;

/** Keyed transfers over verbs (Soft-RoCE in the VM). */
@ExtendWith(ResourceBaseline.class) // the faults leave no resource behind
class KeyedTransferTest extends KeyedTransferContract {
    @Override
    Fabric fabric() {
        return Fabric.VERBS;
    }
}
