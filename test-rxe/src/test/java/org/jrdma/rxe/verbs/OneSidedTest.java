package org.jrdma.rxe.verbs;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.OneSidedContract;



/** The OneSided contract over verbs (Soft-RoCE in the VM). */
class OneSidedTest extends OneSidedContract {
    @Override
    protected Fabric fabric() {
        return Fabric.VERBS;
    }
}
