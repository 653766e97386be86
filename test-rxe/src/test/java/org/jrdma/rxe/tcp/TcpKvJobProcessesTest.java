package org.jrdma.rxe.tcp;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.KvJobProcessesContract;
import org.junit.jupiter.api.Tag;

/** A push/pull job of one JVM per node, some killed, over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpKvJobProcessesTest extends KvJobProcessesContract {
    @Override
    protected Fabric fabric() {
        return Fabric.TCP;
    }
}
