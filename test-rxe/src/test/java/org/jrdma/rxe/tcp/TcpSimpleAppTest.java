package org.jrdma.rxe.tcp;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.SimpleAppContract;
import org.junit.jupiter.api.Tag;

/** ps-lite's SimpleApp over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpSimpleAppTest extends SimpleAppContract {
    @Override
    protected Fabric fabric() {
        return Fabric.TCP;
    }
}
