package org.jrdma.rxe.tcp;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.KvContract;
import org.junit.jupiter.api.Tag;

/** Push/pull over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpKvTest extends KvContract {
    @Override
    protected Fabric fabric() {
        return Fabric.TCP;
    }
}
