package org.jrdma.rxe.tcp;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.KvJobContract;
import org.junit.jupiter.api.Tag;

/** A push/pull job's start-up, barriers and failures over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpKvJobTest extends KvJobContract {
    @Override
    protected Fabric fabric() {
        return Fabric.TCP;
    }
}
