package org.jrdma.rxe.tcp;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.KvHandlerContract;
import org.junit.jupiter.api.Tag;

/** A kv server's request handler over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpKvHandlerTest extends KvHandlerContract {
    @Override
    protected Fabric fabric() {
        return Fabric.TCP;
    }
}
