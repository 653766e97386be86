package org.jrdma.netty;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.socket.ServerSocketSuspendTest;
import java.net.SocketAddress;
import java.util.List;

/** Netty's ServerSocketSuspendTest over jrdma. */
class RdmaServerSocketSuspendTest extends ServerSocketSuspendTest {
    @Override
    protected List<BootstrapFactory<ServerBootstrap>> newFactories() {
        return RdmaSocketTestPermutation.INSTANCE.serverSocket();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return RdmaSocketTestPermutation.newSocketAddress();
    }
}
