package org.jrdma.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.socket.SocketChannelNotYetConnectedTest;
import java.net.SocketAddress;
import java.util.List;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Netty's SocketChannelNotYetConnectedTest over jrdma. */
class RdmaSocketChannelNotYetConnectedTest extends SocketChannelNotYetConnectedTest {
    @Override
    protected List<BootstrapFactory<Bootstrap>> newFactories() {
        return RdmaSocketTestPermutation.INSTANCE.clientSocket();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return RdmaSocketTestPermutation.newSocketAddress();
    }

    @Test
    @Override
    @Disabled("does not apply: its server is an NIO server, which a jrdma client cannot talk to (jrdma speaks its own"
            + " protocol even over TCP); reading before the channel is active is covered by RdmaSocketEchoTest's"
            + " not-auto-read cases and RdmaSocketReadPendingTest")
    public void readMustBePendingUntilChannelIsActive(TestInfo info) {
    }
}
