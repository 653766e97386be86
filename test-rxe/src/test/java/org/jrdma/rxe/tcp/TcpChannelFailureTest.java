package org.jrdma.rxe.tcp;

import org.jrdma.rxe.contract.ChannelFailureContract;
import org.jrdma.rxe.contract.Fabric;
import org.junit.jupiter.api.Tag;

/** The ChannelFailure contract over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpChannelFailureTest extends ChannelFailureContract {
    @Override
    protected Fabric fabric() {
        return Fabric.TCP;
    }
}
