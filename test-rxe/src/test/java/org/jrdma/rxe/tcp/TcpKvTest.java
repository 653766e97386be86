package org.jrdma.rxe;

import org.junit.jupiter.api.Tag;

/** Push/pull over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpKvTest extends KvContract {
    @Override
    Fabric fabric() {
        return Fabric.TCP;
    }
}
