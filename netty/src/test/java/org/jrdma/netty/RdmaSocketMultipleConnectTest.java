package org.jrdma.netty;

import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketMultipleConnectTest;
import java.net.SocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Netty's SocketMultipleConnectTest over jrdma. */
class RdmaSocketMultipleConnectTest extends SocketMultipleConnectTest {
    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return RdmaSocketTestPermutation.INSTANCE.socket();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return RdmaSocketTestPermutation.newSocketAddress();
    }

    @Test
    @Override
    public void testMultipleConnect(TestInfo testInfo) throws Throwable {
        assumeFalse(RdmaSocketTestPermutation.overVerbs(),
                "does not apply over verbs: it binds Netty's LOCALHOST, an address no RDMA device has");
        super.testMultipleConnect(testInfo);
    }
}
