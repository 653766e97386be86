package org.jrdma.rxe.verbs;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.KvContract;
import org.jrdma.rxe.contract.ResourceBaseline;
import org.junit.jupiter.api.extension.ExtendWith;

/** Push/pull over verbs (Soft-RoCE in the VM). */
@ExtendWith(ResourceBaseline.class) // the faults leave no resource behind
class KvTest extends KvContract {
    @Override
    protected Fabric fabric() {
        return Fabric.VERBS;
    }
}
