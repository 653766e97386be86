package org.jrdma.rxe;

import org.junit.jupiter.api.Tag;

/** Keyed transfers over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpKeyedTransferTest extends KeyedTransferContract {
    @Override
    Fabric fabric() {
        return Fabric.TCP;
    }
}
