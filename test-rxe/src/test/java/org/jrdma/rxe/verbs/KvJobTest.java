package org.jrdma.rxe.verbs;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.KvJobContract;
import org.jrdma.rxe.contract.ResourceBaseline;
import org.junit.jupiter.api.extension.ExtendWith;

/** A push/pull job's start-up, barriers and failures over verbs (Soft-RoCE in the VM). */
@ExtendWith(ResourceBaseline.class) // the departures leave no resource behind
class KvJobTest extends KvJobContract {
    @Override
    protected Fabric fabric() {
        return Fabric.VERBS;
    }
}
