package org.jrdma.rxe.verbs;

import org.jrdma.rxe.contract.CallerDrivenContract;
import org.jrdma.rxe.contract.Fabric;

/** The caller-driven contract over verbs on Soft-RoCE (the VM). */
class CallerDrivenTest extends CallerDrivenContract {
    @Override
    protected Fabric fabric() {
        return Fabric.VERBS;
    }
}
