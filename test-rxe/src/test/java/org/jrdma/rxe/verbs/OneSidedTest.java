package org.jrdma.rxe;

/** The OneSided contract over verbs (Soft-RoCE in the VM). */
class OneSidedTest extends OneSidedContract {
    @Override
    Fabric fabric() {
        return Fabric.VERBS;
    }
}
