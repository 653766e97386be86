package org.jrdma.netty;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketAddressesTest;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Netty's SocketAddressesTest over jrdma: both ends' addresses are IP addresses with their ports. */
class RdmaSocketAddressesTest extends SocketAddressesTest {
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
    public void testAddresses(TestInfo testInfo) throws Throwable {
        assumeFalse(RdmaSocketTestPermutation.overVerbs(), "does not apply over verbs in the VM: it connects from the"
                + " servers' address, which is the other device's (clients are on rxe1); testAddressesConnectWithoutLocalAddress runs");
        super.testAddresses(testInfo);
    }

    @Override
    protected void assertAddress(SocketAddress address) {
        InetSocketAddress inet = assertInstanceOf(InetSocketAddress.class, address);
        assertNotEquals(0, inet.getPort(), inet.toString());
    }
}
