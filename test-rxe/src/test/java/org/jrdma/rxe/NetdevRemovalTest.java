package org.jrdma.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jrdma.DeviceRemovedException;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaException;
import org.jrdma.RegisteredBuffer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The network interface under both devices is deleted (`ip link delete veth1` takes the pair, so
 * rxe0 and rxe1 lose their netdevs): the policy is to fail, visibly and at once. Channels on the
 * devices close with {@link DeviceRemovedException}, their pending operations fail with it, each
 * context refuses new work with it as its failure, and closing the contexts completes. It destroys
 * the topology, so it runs last, in its own JVM (tag "netdev-removal", test-rxe/vm/junit-suite.sh).
 */
@Tag("netdev-removal")
class NetdevRemovalTest {
    @Test
    void channelsOnARemovedDeviceFailWithTheCauseAndTheContextsRefuseNewWorkAndClose() throws Exception {
        Assumptions.assumeTrue(RxeEnvironment.topology().equals("two"), "needs the veth pair (topology two)");
        Endpoints e = new Endpoints(org.jrdma.RdmaConfig.builder().keepaliveMillis(0));
        InetSocketAddress address = Endpoints.nextAddress();
        CompletableFuture<RdmaChannel> accepted = new CompletableFuture<>();
        e.listen(address, new org.jrdma.ChannelHandler() {
            @Override
            public void onOpen(RdmaChannel channel) {
                accepted.complete(channel);
            }

            @Override
            public void onMessage(RdmaChannel channel, org.jrdma.RdmaMessage message) {
            }
        });
        RdmaChannel channel = e.connect(address, (ch, m) -> { });
        RdmaChannel serverSide = accepted.get(30, TimeUnit.SECONDS);
        RegisteredBuffer out = e.client.allocate(4096);
        channel.send(out, 0, 100).get(30, TimeUnit.SECONDS);

        // The kernel waits for every process holding the device before it finishes: not awaited here.
        Process delete = new ProcessBuilder("ip", "link", "delete", "veth1").inheritIO().start();
        long start = System.nanoTime();
        Throwable clientCause = channel.closeFuture().get(10, TimeUnit.SECONDS);
        Throwable serverCause = serverSide.closeFuture().get(10, TimeUnit.SECONDS);
        System.out.printf("NetdevRemovalTest: both channels closed %d ms after the netdev was deleted: %s%n",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), clientCause.getMessage());
        assertInstanceOf(DeviceRemovedException.class, clientCause);
        assertInstanceOf(DeviceRemovedException.class, serverCause);
        assertFalse(channel.isOpen());

        ExecutionException send = assertThrows(ExecutionException.class, () -> channel.send(out, 0, 100).get(10, TimeUnit.SECONDS));
        assertInstanceOf(org.jrdma.RdmaClosedException.class, send.getCause());
        assertInstanceOf(DeviceRemovedException.class, send.getCause().getCause(), "a send on the closed channel names the removal");
        assertInstanceOf(DeviceRemovedException.class, e.client.failure(), "the client context knows its device is gone");
        assertInstanceOf(DeviceRemovedException.class, e.server.failure(), "so does the server context");
        RdmaException refused = assertThrows(RdmaException.class, () -> e.client.connect(address, e.clientAddress, (ch, m) -> { }));
        assertInstanceOf(DeviceRemovedException.class, refused.getCause(), refused.getMessage());

        CompletableFuture<Void> closed = CompletableFuture.runAsync(e::close);
        closed.get(10, TimeUnit.SECONDS);
        assertTrue(e.client.isClosed() && e.server.isClosed());
        assertEquals(true, delete.isAlive() || delete.exitValue() == 0, "ip link delete failed");
    }
}
