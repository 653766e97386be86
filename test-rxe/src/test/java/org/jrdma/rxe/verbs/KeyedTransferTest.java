package org.jrdma.rxe.verbs;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.KeyedTransferContract;
import org.jrdma.rxe.contract.ResourceBaseline;
import org.junit.jupiter.api.extension.ExtendWith;

/** Keyed transfers over verbs (Soft-RoCE in the VM). */
@ExtendWith(ResourceBaseline.class) // the faults leave no resource behind
class KeyedTransferTest extends KeyedTransferContract {
    @Override
    protected Fabric fabric() {
        return Fabric.VERBS;
    }
}
