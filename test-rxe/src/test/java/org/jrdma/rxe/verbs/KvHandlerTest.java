package org.jrdma.rxe.verbs;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.KvHandlerContract;
import org.jrdma.rxe.contract.ResourceBaseline;
import org.junit.jupiter.api.extension.ExtendWith;

/** A kv server's request handler over verbs (Soft-RoCE in the VM). */
@ExtendWith(ResourceBaseline.class) // the faults leave no resource behind
class KvHandlerTest extends KvHandlerContract {
    @Override
    protected Fabric fabric() {
        return Fabric.VERBS;
    }
}
