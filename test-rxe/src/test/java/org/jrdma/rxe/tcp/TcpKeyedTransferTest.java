package org.jrdma.rxe.tcp;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.KeyedTransferContract;
import org.junit.jupiter.api.Tag;

/** Keyed transfers over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpKeyedTransferTest extends KeyedTransferContract {
    @Override
    protected Fabric fabric() {
        return Fabric.TCP;
    }
}
