package org.jrdma.rxe.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jrdma.AsyncEvent;
import org.jrdma.AsyncEventType;
import org.jrdma.ChannelHandler;
import org.jrdma.DeviceRemovedException;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaClosedException;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaException;
import org.jrdma.RdmaMessage;
import org.jrdma.RdmaOperationException;
import org.jrdma.RegisteredBuffer;
import org.jrdma.rxe.contract.Endpoints;
import org.jrdma.rxe.contract.Patterns;
import org.jrdma.rxe.contract.RxeEnvironment;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The faults that leave the fabric unusable for what follows, so they run last in the plain boot,
 * in a JVM of their own (tag "destroys-topology", test-rxe/vm/junit-suite.sh), on channels opened
 * before them:
 * <ol>
 * <li>A send into a link outage fails its channel with {@link RdmaOperationException} at once; an
 * idle channel on the same link survives and carries messages after the outage. (After the failed
 * channel's disconnect went out into the down link, the kernel's connection manager accepts no new
 * connection over it for minutes — reproduced without jrdma: test-rxe/repro/run-cm-after-outage —
 * which is why this runs last and opens nothing afterwards.)</li>
 * <li>The netdev under both devices is deleted (`ip link delete veth1` takes the pair): the policy
 * is to fail, visibly and at once — channels close with {@link DeviceRemovedException}, each context
 * refuses new work with it as its failure, and closing the contexts completes.</li>
 * </ol>
 */
@Tag("destroys-topology")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TopologyDestroyingTest {
    private static final int SIZE = 1024;
    private static Endpoints endpoints;
    private static InetSocketAddress address;
    private static final BlockingQueue<String> arrived = new LinkedBlockingQueue<>();
    private static final BlockingQueue<RdmaChannel> accepted = new LinkedBlockingQueue<>();
    private static RdmaChannel busy;
    private static RdmaChannel idle;
    private static RegisteredBuffer out;

    @BeforeAll
    static void twoChannelsOnTheLink() throws Exception {
        Assumptions.assumeTrue(RxeEnvironment.topology().equals("two"), "needs the veth pair (topology two)");
        endpoints = new Endpoints(RdmaConfig.builder().keepaliveMillis(0)); // a keepalive would be a send
        address = Endpoints.nextAddress();
        endpoints.listen(address, new ChannelHandler() {
            @Override
            public void onOpen(RdmaChannel channel) {
                accepted.add(channel);
            }

            @Override
            public void onMessage(RdmaChannel channel, RdmaMessage message) {
                String broken = Patterns.check(message.payload(), SIZE, Patterns.seedOf(message.payload()));
                arrived.add(broken != null ? broken : "" + Patterns.seedOf(message.payload()));
            }
        });
        busy = endpoints.connect(address, (ch, m) -> { });
        idle = endpoints.connect(address, (ch, m) -> { });
        out = endpoints.client.allocate(SIZE * 21);
        for (int i = 0; i <= 20; i++) {
            Patterns.fill(out.buffer(), i * SIZE, SIZE, i);
        }
    }

    @AfterAll
    static void closeWhatIsLeft() {
        if (endpoints != null) {
            endpoints.close();
        }
    }

    @Test
    @Order(1)
    void aSendIntoAnOutageFailsOnlyItsChannelAndAnIdleChannelCarriesOnAfterIt() throws Exception {
        BlockingQueue<AsyncEvent> events = new LinkedBlockingQueue<>();
        endpoints.client.addAsyncEventListener(events::add);
        busy.send(out, 0, SIZE).get(30, TimeUnit.SECONDS);
        assertEquals("0", arrived.poll(30, TimeUnit.SECONDS));
        LinkOutageTest.link("down");
        try {
            assertNotNull(RxeEnvironment.nextAsyncEvent(events, AsyncEventType.PORT_ERR), "no PORT_ERR within 30 s of veth1 going down");
            long start = System.nanoTime();
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> busy.send(out, SIZE, SIZE).get(30, TimeUnit.SECONDS));
            System.out.printf("TopologyDestroyingTest: a send into the outage failed after %d ms: %s%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), failed.getCause().getMessage());
            RdmaOperationException error = assertInstanceOf(RdmaOperationException.class, failed.getCause());
            // rxe cannot transmit on a down netdev: LOC_QP_OP_ERR at once (hardware: RETRY_EXC_ERR after its retries)
            assertTrue(error.getMessage().contains("LOC_QP_OP_ERR") || error.getMessage().contains("RETRY_EXC_ERR"),
                    error.getMessage());
            assertInstanceOf(RdmaOperationException.class, busy.closeFuture().get(30, TimeUnit.SECONDS));
        } finally {
            LinkOutageTest.link("up");
        }
        assertNotNull(RxeEnvironment.nextAsyncEvent(events, AsyncEventType.PORT_ACTIVE), "no PORT_ACTIVE within 30 s of veth1 coming up");
        assertNull(endpoints.client.failure(), "a port error is not fatal for the context");
        assertTrue(idle.isOpen(), "the idle channel on the same link survives");
        for (int i = 1; i <= 20; i++) {
            idle.send(out, i * SIZE, SIZE).get(60, TimeUnit.SECONDS);
        }
        for (int i = 1; i <= 20; i++) {
            assertEquals("" + i, arrived.poll(60, TimeUnit.SECONDS), "message " + i + " on the idle channel");
        }
    }

    @Test
    @Order(2)
    void channelsOnARemovedDeviceFailWithTheCauseAndTheContextsRefuseNewWorkAndClose() throws Exception {
        assertTrue(idle.isOpen(), "the channel the first test left open");
        RdmaChannel serverSide = null;
        for (RdmaChannel candidate : accepted) {
            if (candidate.isOpen()) {
                serverSide = candidate;
            }
        }
        assertNotNull(serverSide, "the server's side of the idle channel");
        // The kernel waits for every process holding the device before it finishes: not awaited here.
        Process delete = new ProcessBuilder("ip", "link", "delete", "veth1").inheritIO().start();
        long start = System.nanoTime();
        Throwable clientCause = idle.closeFuture().get(10, TimeUnit.SECONDS);
        Throwable serverCause = serverSide.closeFuture().get(10, TimeUnit.SECONDS);
        System.out.printf("TopologyDestroyingTest: both channels closed %d ms after the netdev was deleted: %s%n",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), clientCause.getMessage());
        assertInstanceOf(DeviceRemovedException.class, clientCause);
        assertInstanceOf(DeviceRemovedException.class, serverCause);

        ExecutionException send = assertThrows(ExecutionException.class, () -> idle.send(out, 0, SIZE).get(10, TimeUnit.SECONDS));
        assertInstanceOf(RdmaClosedException.class, send.getCause());
        assertInstanceOf(DeviceRemovedException.class, send.getCause().getCause(), "a send on the closed channel names the removal");
        assertInstanceOf(DeviceRemovedException.class, endpoints.client.failure(), "the client context knows its device is gone");
        assertInstanceOf(DeviceRemovedException.class, endpoints.server.failure(), "so does the server context");
        RdmaException refused = assertThrows(RdmaException.class,
                () -> endpoints.client.connect(address, endpoints.clientAddress, (ch, m) -> { }));
        assertInstanceOf(DeviceRemovedException.class, refused.getCause(), refused.getMessage());

        CompletableFuture.runAsync(endpoints::close).get(10, TimeUnit.SECONDS);
        assertTrue(endpoints.client.isClosed() && endpoints.server.isClosed());
        assertTrue(delete.isAlive() || delete.exitValue() == 0, "ip link delete failed");
    }
}
