package org.jrdma.rxe.verbs;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.RemoteMemoryAgentContract;
import org.jrdma.rxe.contract.ResourceBaseline;
import org.junit.jupiter.api.extension.ExtendWith;

/** The RemoteMemoryAgent contract over verbs (Soft-RoCE in the VM). */
@ExtendWith(ResourceBaseline.class) // the fault leaves no resource behind
class RemoteMemoryAgentTest extends RemoteMemoryAgentContract {
    @Override
    protected Fabric fabric() {
        return Fabric.VERBS;
    }
}
