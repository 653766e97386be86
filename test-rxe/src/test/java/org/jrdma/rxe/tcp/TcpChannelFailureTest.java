package org.jrdma.rxe;

import org.junit.jupiter.api.Tag;

/** The ChannelFailure contract over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpChannelFailureTest extends ChannelFailureContract {
    @Override
    Fabric fabric() {
        return Fabric.TCP;
    }
}
