package org.jrdma.rxe.verbs;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.ResourceBaseline;
import org.jrdma.rxe.contract.SimpleAppContract;
import org.junit.jupiter.api.extension.ExtendWith;

/** ps-lite's SimpleApp over verbs (Soft-RoCE in the VM). */
@ExtendWith(ResourceBaseline.class) // the faults leave no resource behind
class SimpleAppTest extends SimpleAppContract {
    @Override
    protected Fabric fabric() {
        return Fabric.VERBS;
    }
}
