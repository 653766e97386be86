package org.jrdma.rxe;

import org.junit.jupiter.api.Tag;

/** Push/pull requests over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpKvRequestTest extends KvRequestContract {
    @Override
    Fabric fabric() {
        return Fabric.TCP;
    }
}
