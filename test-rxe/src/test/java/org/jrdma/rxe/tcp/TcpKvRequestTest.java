package org.jrdma.rxe.tcp;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.KvRequestContract;
import org.junit.jupiter.api.Tag;

/** Push/pull requests over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpKvRequestTest extends KvRequestContract {
    @Override
    protected Fabric fabric() {
        return Fabric.TCP;
    }
}
