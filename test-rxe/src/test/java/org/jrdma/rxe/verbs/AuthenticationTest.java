package org.jrdma.rxe;

import org.junit.jupiter.api.extension.ExtendWith;

/** The Authentication contract over verbs (Soft-RoCE in the VM). */
@ExtendWith(ResourceBaseline.class) // the fault leaves no resource behind
class AuthenticationTest extends AuthenticationContract {
    @Override
    Fabric fabric() {
        return Fabric.VERBS;
    }
}
