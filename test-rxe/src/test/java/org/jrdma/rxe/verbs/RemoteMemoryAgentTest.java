package org.jrdma.rxe;

import org.junit.jupiter.api.extension.ExtendWith;

/** The RemoteMemoryAgent contract over verbs (Soft-RoCE in the VM). */
@ExtendWith(ResourceBaseline.class) // the fault leaves no resource behind
class RemoteMemoryAgentTest extends RemoteMemoryAgentContract {
    @Override
    Fabric fabric() {
        return Fabric.VERBS;
    }
}
