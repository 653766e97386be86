package org.jrdma.rxe.verbs;

import org.jrdma.rxe.contract.AuthenticationContract;
import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.ResourceBaseline;
import org.junit.jupiter.api.extension.ExtendWith;

/** The Authentication contract over verbs (Soft-RoCE in the VM). */
@ExtendWith(ResourceBaseline.class) // the fault leaves no resource behind
class AuthenticationTest extends AuthenticationContract {
    @Override
    protected Fabric fabric() {
        return Fabric.VERBS;
    }
}
