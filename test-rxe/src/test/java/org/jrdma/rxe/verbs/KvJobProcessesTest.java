package org.jrdma.rxe.verbs;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.KvJobProcessesContract;

/** A push/pull job of one JVM per node, some killed, over verbs (Soft-RoCE in the VM). */
class KvJobProcessesTest extends KvJobProcessesContract {
    @Override
    protected Fabric fabric() {
        return Fabric.VERBS;
    }
}
