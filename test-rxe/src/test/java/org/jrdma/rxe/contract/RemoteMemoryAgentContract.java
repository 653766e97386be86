package org.jrdma.rxe.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jrdma.Access;
import org.jrdma.AgentLimits;
import org.jrdma.AgentTimeoutException;
import org.jrdma.ChannelHandler;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaConfigBuilder;
import org.jrdma.RdmaMessage;
import org.jrdma.RdmaOperationException;
import org.jrdma.RegisteredBuffer;
import org.jrdma.RemoteAllocationException;
import org.jrdma.RemoteBuffer;
import org.junit.jupiter.api.Test;

/**
 * The remote-memory agent: memory the peer allocates for us (zeroed, exactly the
 * bytes and rights asked for, gone at release or close), its quota and deadline, and tokens either
 * side hands the other — each revoked with its buffer or its channel. Registrations are counted
 * with {@code rdma resource show} on the server's device (over verbs).
 */
public abstract class RemoteMemoryAgentContract {
    /** {@return what this run of the contract goes over} */
    protected abstract Fabric fabric();

    private static final int REM_ACCESS_ERR = 10;

    /**
     * Memory registrations on a device ({@code rdma resource show}); over TCP there is no device to ask
     * (a registration is an entry of the context's memory table), so the counts are checked over verbs
     * only and every other assertion runs on both.
     */
    private int registrations(String device) throws Exception {
        return fabric() == Fabric.VERBS ? ContextLifecycleContract.resourceCounts().getOrDefault(device + ".mr", 0) : 0;
    }

    private int serverRegistrations() throws Exception {
        return registrations(RxeEnvironment.serverDevice());
    }

    private void awaitRegistrations(int expected, String when) throws Exception {
        awaitRegistrations(RxeEnvironment.serverDevice(), expected, when);
    }

    /** Polls until the device's registrations are at {@code expected} (the peer works asynchronously). */
    private void awaitRegistrations(String device, int expected, String when) throws Exception {
        if (fabric() != Fabric.VERBS) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        int now = registrations(device);
        while (now != expected && System.nanoTime() < deadline) {
            new CountDownLatch(1).await(100, TimeUnit.MILLISECONDS);
            now = registrations(device);
        }
        assertEquals(expected, now, "memory registrations on " + device + " " + when);
    }

    private static <T> T get(CompletableFuture<T> future) throws Exception {
        return future.get(60, TimeUnit.SECONDS);
    }

    private static Throwable failure(CompletableFuture<?> future) {
        return assertThrows(ExecutionException.class, () -> future.get(60, TimeUnit.SECONDS)).getCause();
    }

    @Test
    void allocateWriteReadReleaseAndTheTokenDiesWithTheRelease() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            InetSocketAddress address = e.address();
            e.listen(address, (ch, m) -> { });
            RdmaChannel channel = e.connect(address, (ch, m) -> { });
            get(channel.releaseRemote(get(channel.allocateRemote(8192, Access.REMOTE_WRITE)))); // the pool's slab stays
            int baseline = serverRegistrations();

            RemoteBuffer remote = get(channel.allocateRemote(8192, Access.REMOTE_READ, Access.REMOTE_WRITE));
            assertEquals(8192, remote.length());
            awaitRegistrations(baseline + 1, "while the allocation lives (one registration of exactly it)");
            RegisteredBuffer in = e.client.allocate(8192);
            get(channel.read(remote, 0, in, 0, 8192));
            for (int i = 0; i < 8192; i++) {
                assertEquals(0, in.buffer().get(i), "fresh memory is zeroed: byte " + i);
            }
            RegisteredBuffer out = e.client.allocate(8192);
            for (int i = 0; i < 8192; i++) {
                out.buffer().put(i, (byte) (i * 7));
            }
            get(channel.write(out, 0, remote, 0, 8192));
            get(channel.read(remote, 0, in, 0, 8192));
            for (int i = 0; i < 8192; i++) {
                assertEquals((byte) (i * 7), in.buffer().get(i), "byte " + i + " read back");
            }

            get(channel.releaseRemote(remote));
            awaitRegistrations(baseline, "after the release");
            assertThrows(IllegalArgumentException.class, () -> channel.releaseRemote(remote), "a second release");
            Throwable stale = failure(channel.write(out, 0, remote, 0, 64));
            assertEquals(REM_ACCESS_ERR, assertInstanceOf(RdmaOperationException.class, stale).status(), stale.getMessage());
        }
    }

    @Test
    void thePeersQuotaRefusesBeforeAllocatingAndTheRightsAreExactlyThoseAskedFor() throws Exception {
        RdmaConfigBuilder config = RdmaConfig.builder().agentLimits(new AgentLimits(10000, 64 * 1024, 2));
        try (Endpoints e = new Endpoints(fabric(), config)) {
            InetSocketAddress address = e.address();
            e.listen(address, (ch, m) -> { });
            RdmaChannel channel = e.connect(address, (ch, m) -> { });
            RemoteBuffer first = get(channel.allocateRemote(4096, Access.REMOTE_READ));
            RemoteBuffer second = get(channel.allocateRemote(4096, Access.REMOTE_WRITE));
            RemoteAllocationException overCount = assertInstanceOf(RemoteAllocationException.class,
                    failure(channel.allocateRemote(4096, Access.REMOTE_READ)));
            assertEquals(RemoteAllocationException.Reason.OVER_COUNT, overCount.reason());
            assertEquals(2, overCount.limit());
            get(channel.releaseRemote(first));
            RemoteAllocationException overBytes = assertInstanceOf(RemoteAllocationException.class,
                    failure(channel.allocateRemote(61 * 1024, Access.REMOTE_READ)));
            assertEquals(RemoteAllocationException.Reason.OVER_BYTES, overBytes.reason(), overBytes.getMessage());
            assertEquals(64 * 1024, overBytes.limit());
            assertTrue(channel.isOpen(), "refusals leave the channel open");
            // A right that is not named grants nothing: refused here, never sent as REMOTE_ATOMIC.
            assertThrows(NullPointerException.class, () -> channel.allocateRemote(64, (Access) null));

            // Write-only memory: a READ through its token is refused by the peer's device.
            RegisteredBuffer in = e.client.allocate(4096);
            Throwable denied = failure(channel.read(second, 0, in, 0, 64));
            assertEquals(REM_ACCESS_ERR, assertInstanceOf(RdmaOperationException.class, denied).status(), denied.getMessage());
        }
    }

    @Test
    void aPeerThatDoesNotAnswerTimesOutAndItsLateGrantIsReleased() throws Exception {
        RdmaConfigBuilder config = RdmaConfig.builder().agentLimits(new AgentLimits(500, 64L << 20, 256));
        try (Endpoints e = new Endpoints(fabric(), config)) {
            InetSocketAddress address = e.address();
            CountDownLatch stuck = new CountDownLatch(1);
            CountDownLatch unstuck = new CountDownLatch(1);
            // The server's event loop is held in a handler: the allocation request waits behind it.
            e.listen(address, (ch, m) -> {
                stuck.countDown();
                try {
                    unstuck.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                }
            });
            RdmaChannel channel = e.connect(address, (ch, m) -> { });
            get(channel.releaseRemote(get(channel.allocateRemote(4096, Access.REMOTE_WRITE))));
            int baseline = serverRegistrations();
            RegisteredBuffer out = e.client.allocate(64);
            get(channel.send(out, 0, 8));
            assertTrue(stuck.await(30, TimeUnit.SECONDS));
            AgentTimeoutException timeout = assertInstanceOf(AgentTimeoutException.class,
                    failure(channel.allocateRemote(4096, Access.REMOTE_WRITE)));
            assertEquals(500, timeout.timeoutMillis());
            unstuck.countDown();
            // The server now allocates and answers; the client releases the grant nobody waits for.
            awaitRegistrations(baseline, "after the late grant was released");
            assertTrue(channel.isOpen());
            get(channel.releaseRemote(get(channel.allocateRemote(4096, Access.REMOTE_WRITE))));
        }
    }

    @Test
    void closingTheChannelFreesWhatThePeerAllocatedAndRevokesTokens() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            InetSocketAddress address = e.address();
            e.listen(address, (ch, m) -> { });
            RdmaChannel warm = e.connect(address, (ch, m) -> { });
            for (int i = 0; i < 3; i++) { // each size class's slab is registered once and kept by the pool
                get(warm.releaseRemote(get(warm.allocateRemote(4096 << i, Access.REMOTE_WRITE))));
            }
            warm.close();
            get(warm.closeFuture());
            RegisteredBuffer shared = e.client.allocate(4096);
            int baseline = serverRegistrations();
            String clientDevice = RxeEnvironment.clientDevice();
            int clientBaseline = registrations(clientDevice);

            RdmaChannel channel = e.connect(address, (ch, m) -> { });
            for (int i = 0; i < 3; i++) {
                get(channel.allocateRemote(4096 << i, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC));
            }
            get(channel.sendToken(shared, Access.REMOTE_READ));
            get(channel.sendToken(shared, Access.REMOTE_WRITE));
            if (fabric() == Fabric.VERBS && !clientDevice.equals(RxeEnvironment.serverDevice())) { // one device: the sums mix both sides
                // (The channels' rings may come from a cache of registered blocks: at least, not exactly.)
                int server = serverRegistrations();
                int client = registrations(clientDevice);
                assertTrue(server >= baseline + 3, "three allocations registered: " + baseline + " -> " + server);
                assertTrue(client >= clientBaseline + 2, "two tokens registered: " + clientBaseline + " -> " + client);
            }
            channel.close();
            get(channel.closeFuture());
            awaitRegistrations(baseline, "after the channel closed");
            awaitRegistrations(clientDevice, clientBaseline, "after the channel closed (tokens revoked)");
            assertTrue(!shared.isClosed(), "the buffer itself stays");
        }
    }

    @Test
    void aTokenSentArrivesInOrderAndGrantsExactlyItsRights() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            InetSocketAddress address = e.address();
            BlockingQueue<Object> seen = new ArrayBlockingQueue<>(8);
            AtomicReference<RdmaChannel> serverSide = new AtomicReference<>();
            RegisteredBuffer serverOut = e.server.allocate(64);
            ChannelHandler server = new ChannelHandler() {
                @Override
                public void onMessage(RdmaChannel ch, RdmaMessage m) {
                    seen.add("message");
                }

                @Override
                public void onToken(RdmaChannel ch, RemoteBuffer token) {
                    serverSide.set(ch);
                    seen.add(token);
                    // Writes through the token from the handler; the result goes to the queue.
                    ch.write(serverOut, 0, token, 0, 5).whenComplete((v, t) -> seen.add(t == null ? "written" : t));
                }
            };
            e.listen(address, server);
            RdmaChannel channel = e.connect(address, (ch, m) -> { });
            serverOut.buffer().put(0, "hello".getBytes(StandardCharsets.US_ASCII));
            RegisteredBuffer shared = e.client.allocate(4096); // local only: the token is its own registration
            RegisteredBuffer note = e.client.allocate(64);
            RemoteBuffer sent = get(channel.sendToken(shared, Access.REMOTE_WRITE));
            get(channel.send(note, 0, 8));
            assertEquals(sent, seen.poll(30, TimeUnit.SECONDS), "the token arrives first, as it was sent");
            Object first = seen.poll(30, TimeUnit.SECONDS);
            Object second = seen.poll(30, TimeUnit.SECONDS);
            assertTrue(Set.of(first, second).equals(Set.of("message", "written")), first + ", " + second);
            assertEquals("hello", StandardCharsets.US_ASCII.decode(shared.buffer().limit(5)).toString());
            assertEquals(4096, sent.length());

            // Write-only: the peer cannot read through it.
            RegisteredBuffer serverIn = e.server.allocate(64);
            Throwable unreadable = failure(serverSide.get().read(sent, 0, serverIn, 0, 5));
            assertEquals(REM_ACCESS_ERR, assertInstanceOf(RdmaOperationException.class, unreadable).status());
        }
    }

    @Test
    void aTokenDiesWithItsBuffer() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            InetSocketAddress address = e.address();
            BlockingQueue<Object[]> tokens = new ArrayBlockingQueue<>(8);
            e.listen(address, new ChannelHandler() {
                @Override
                public void onMessage(RdmaChannel ch, RdmaMessage m) {
                }

                @Override
                public void onToken(RdmaChannel ch, RemoteBuffer token) {
                    tokens.add(new Object[] {ch, token});
                }
            });
            RdmaChannel channel = e.connect(address, (ch, m) -> { });
            RegisteredBuffer shared = e.client.allocate(4096);
            get(channel.sendToken(shared, Access.REMOTE_WRITE));
            Object[] received = tokens.poll(30, TimeUnit.SECONDS);
            RdmaChannel serverSide = (RdmaChannel) received[0];
            RemoteBuffer token = (RemoteBuffer) received[1];
            RegisteredBuffer serverOut = e.server.allocate(64);
            get(serverSide.write(serverOut, 0, token, 0, 8)); // works while the buffer lives
            shared.close();
            Throwable revoked = failure(serverSide.write(serverOut, 0, token, 0, 8));
            assertEquals(REM_ACCESS_ERR, assertInstanceOf(RdmaOperationException.class, revoked).status(), revoked.getMessage());
        }
    }
}
