package org.jrdma.rxe.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.RxeEnvironment;
import org.junit.jupiter.api.Test;

/**
 * A verbs context connects from its own device when the caller names no local address. In the VM the
 * server's address is local to the guest, so the route's own choice leads out of the server's device
 * (rxe0), whose queue pairs the client's context (rxe1) cannot use: the connect failed with EINVAL.
 */
class SourceAddressTest {
    @Test
    void aConnectWithoutALocalAddressLeavesFromTheContextsDevice() throws Exception {
        Fabric.VERBS.require();
        assertEquals("two", RxeEnvironment.topology(), "needs the two-device topology");
        try (RdmaContext server = Rdma.open(Fabric.VERBS.serverConfig(RdmaConfig.builder()));
             RdmaContext client = Rdma.open(Fabric.VERBS.clientConfig(RdmaConfig.builder()))) {
            InetSocketAddress address = Fabric.VERBS.nextAddress();
            server.listen(address, (ch, m) -> { });
            RdmaChannel channel = client.connect(address, (ch, m) -> { }).get(30, TimeUnit.SECONDS);
            assertEquals(Fabric.VERBS.clientAddress(), channel.localAddress().getAddress(), "the client's device's address");
            assertEquals(address, channel.remoteAddress());
        }
    }
}
