package org.jrdma.rxe.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.ChannelHandler;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaMessage;
import org.jrdma.RdmaServer;
import org.jrdma.RegisteredBuffer;
import org.junit.jupiter.api.Test;

/** Two-sided messaging over real rxe: content, order, credits under a slow receiver, many channels. */
public abstract class MessagingContract {
    /** {@return what this run of the contract goes over} */
    protected abstract Fabric fabric();

    /** Echoes every message back on the same channel. */
    public static final class Echo implements ChannelHandler {
        private final Map<RdmaChannel, RegisteredBuffer> buffers = new ConcurrentHashMap<>();
        private final RdmaContext context;

        public Echo(RdmaContext context) {
            this.context = context;
        }

        @Override
        public void onMessage(RdmaChannel channel, RdmaMessage message) {
            RegisteredBuffer out = buffers.computeIfAbsent(channel, c -> context.allocate(64 * 1024));
            // A reply buffer per channel: safe because the client waits for each echo before sending again.
            out.buffer().put(message.payload());
            channel.send(out, 0, message.length());
        }
    }

    /** A client handler that copies each message's payload into {@code replies}. */
    public static ChannelHandler copiesInto(BlockingQueue<byte[]> replies) {
        return (channel, message) -> {
            byte[] copy = new byte[message.length()];
            message.payload().get(copy);
            replies.add(copy);
        };
    }

    public static byte[] pattern(int length, int seed) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (seed * 31 + i * 7);
        }
        return bytes;
    }

    /**
     * maxInline above rxe's limit (512 bytes): the queue pairs are created with the largest inline size
     * the device accepts, and messages on both sides of every inline boundary (236 by default, 512 on
     * rxe, 0 when switched off) arrive intact.
     */
    /**
     * A message whose send completed has reached the peer's device: the peer's application gets it
     * even when the sender closes right after (the peer's disconnect event can be seen before the
     * receive completions; they are delivered first).
     */
    @Test
    void eachEndKnowsBothAddressesAndTheyAgree() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            InetSocketAddress address = e.address();
            CompletableFuture<RdmaChannel> accepted = new CompletableFuture<>();
            RdmaServer server = e.listen(address, new ChannelHandler() {
                @Override
                public void onOpen(RdmaChannel channel) {
                    accepted.complete(channel);
                }

                @Override
                public void onMessage(RdmaChannel channel, RdmaMessage message) {
                }
            });
            RdmaChannel client = e.connect(server.localAddress(), (ch, m) -> { });
            RdmaChannel serverSide = accepted.get(10, TimeUnit.SECONDS);
            assertEquals(server.localAddress(), serverSide.localAddress(), "the accepted channel's own end is the listener's");
            assertEquals(server.localAddress(), client.remoteAddress());
            assertEquals(client.localAddress(), serverSide.remoteAddress(), "what the client is, as the server sees it");
            assertEquals(e.clientAddress, client.localAddress().getAddress());
            assertTrue(client.localAddress().getPort() > 0, client.localAddress().toString());
        }
    }

    @Test
    void messagesSentBeforeAGracefulCloseAllReachThePeersHandler() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            InetSocketAddress address = e.address();
            int rounds = 20;
            AtomicInteger received = new AtomicInteger();
            CountDownLatch all = new CountDownLatch(rounds * 10);
            e.listen(address, (ch, m) -> {
                received.incrementAndGet();
                all.countDown();
            });
            RegisteredBuffer out = e.client.allocate(4096);
            for (int round = 0; round < rounds; round++) {
                RdmaChannel channel = e.connect(address, (ch, m) -> { });
                for (int i = 0; i < 10; i++) {
                    channel.send(out, 0, 100).get(30, TimeUnit.SECONDS);
                }
                channel.close();
                channel.closeFuture().get(30, TimeUnit.SECONDS);
            }
            all.await(30, TimeUnit.SECONDS);
            assertEquals(rounds * 10, received.get(), "messages delivered of " + rounds * 10 + " sent and completed");
        }
    }

    @Test
    void pingPongOfManySizesKeepsContent() throws Exception {
        // Sizes on both sides of the eager limit (4080 bytes): above it the echo goes by rendezvous.
        try (Endpoints e = new Endpoints(fabric(), RdmaConfig.builder().maxMessageSize(6000))) {
            InetSocketAddress address = e.address();
            RdmaServer server = e.listen(address, new Echo(e.server));
            BlockingQueue<byte[]> replies = new LinkedBlockingQueue<>();
            RdmaChannel channel = e.connect(address, copiesInto(replies));
            RegisteredBuffer out = e.client.allocate(8192);
            int max = channel.maxMessageSize();
            assertEquals(6000, max);
            int[] sizes = {0, 1, 7, 8, 63, 64, 65, 255, 1000, 2048, 4000, 4080, 4081, 5000, max};
            for (int round = 0; round < 3; round++) {
                for (int size : sizes) {
                    byte[] data = pattern(size, size + round);
                    out.buffer().put(data);
                    channel.send(out, 0, size).get(10, TimeUnit.SECONDS);
                    byte[] echoed = replies.poll(10, TimeUnit.SECONDS);
                    assertTrue(Arrays.equals(data, echoed), "size " + size);
                }
            }
            IllegalArgumentException tooLarge = assertThrows(IllegalArgumentException.class, () -> channel.send(out, 0, max + 1));
            assertTrue(tooLarge.getMessage().contains("exceeds the peer's maxMessageSize"), tooLarge.getMessage());
            assertThrows(IllegalArgumentException.class, () -> channel.send(out, 8000, 500));
            assertThrows(IllegalArgumentException.class, () -> channel.send(out, -1, 5));
            assertTrue(channel.isOpen(), "bad arguments are refused locally and leave the channel usable");
            server.close();
        }
    }

    @Test
    void streamingKeepsOrderAndCreditsHoldAgainstASlowReceiver() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            InetSocketAddress address = e.address();
            int count = 3000;
            List<Long> received = new ArrayList<>();
            CountDownLatch done = new CountDownLatch(count);
            ExecutorService slow = Executors.newSingleThreadExecutor();
            // The receiver holds each message and releases it later on another thread, slowly:
            // the sender outruns it many times over and must wait for credits instead of failing.
            e.listen(address, (ch, message) -> {
                message.retain();
                long value = message.payload().order(ByteOrder.LITTLE_ENDIAN).getLong(0);
                slow.execute(() -> {
                    synchronized (received) {
                        received.add(value);
                    }
                    if (value % 100 == 0) {
                        try {
                            Thread.sleep(20);
                        } catch (InterruptedException ignored) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    message.release();
                    done.countDown();
                });
            });
            RdmaChannel channel = e.connect(address, (ch, m) -> { });
            long rnrBefore = fabric().receiverNotReadyCount();
            List<CompletableFuture<Void>> sends = new ArrayList<>();
            List<RegisteredBuffer> buffers = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                RegisteredBuffer b = e.client.allocate(256);
                b.buffer().order(ByteOrder.LITTLE_ENDIAN).putLong(0, i);
                buffers.add(b);
                sends.add(channel.send(b, 0, 256));
            }
            CompletableFuture.allOf(sends.toArray(new CompletableFuture[0])).get(120, TimeUnit.SECONDS);
            assertTrue(done.await(120, TimeUnit.SECONDS), "received " + (count - done.getCount()) + " of " + count);
            synchronized (received) {
                for (int i = 0; i < count; i++) {
                    assertEquals(i, received.get(i), "order at " + i);
                }
            }
            assertTrue(channel.isOpen());
            assertEquals(rnrBefore, fabric().receiverNotReadyCount(), "receiver-not-ready NAKs (rxe hw_counters): credits must prevent every one");
            slow.shutdown();
            buffers.forEach(RegisteredBuffer::close);
        }
    }

    @Test
    void sixtyFourChannelsInBothDirectionsAtOnce() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            InetSocketAddress address = e.address();
            int channels = 64;
            int perChannel = 20;
            AtomicInteger atServer = new AtomicInteger();
            CountDownLatch allArrived = new CountDownLatch(2 * channels * perChannel);  // both directions
            ConcurrentLinkedQueue<RdmaChannel> accepted = new ConcurrentLinkedQueue<>();
            CountDownLatch allAccepted = new CountDownLatch(channels);
            e.listen(address, new ChannelHandler() {
                @Override
                public void onOpen(RdmaChannel channel) {
                    accepted.add(channel);
                    allAccepted.countDown();
                }

                @Override
                public void onMessage(RdmaChannel channel, RdmaMessage message) {
                    atServer.incrementAndGet();
                    allArrived.countDown();
                }
            });
            AtomicInteger atClient = new AtomicInteger();
            List<CompletableFuture<RdmaChannel>> connecting = new ArrayList<>();
            for (int i = 0; i < channels; i++) {
                connecting.add(e.client.connect(address, e.clientAddress, (ch, m) -> {
                    atClient.incrementAndGet();
                    allArrived.countDown();
                }));
            }
            List<RdmaChannel> clientChannels = new ArrayList<>();
            for (CompletableFuture<RdmaChannel> f : connecting) {
                clientChannels.add(f.get(60, TimeUnit.SECONDS));
            }
            assertTrue(allAccepted.await(60, TimeUnit.SECONDS));
            RegisteredBuffer clientOut = e.client.allocate(128);
            RegisteredBuffer serverOut = e.server.allocate(128);
            List<CompletableFuture<Void>> sends = new ArrayList<>();
            for (int round = 0; round < perChannel; round++) {
                for (RdmaChannel c : clientChannels) {
                    sends.add(c.send(clientOut, 0, 128));
                }
                for (RdmaChannel s : accepted) {
                    sends.add(s.send(serverOut, 0, 128));
                }
            }
            CompletableFuture.allOf(sends.toArray(new CompletableFuture[0])).get(120, TimeUnit.SECONDS);
            allArrived.await(60, TimeUnit.SECONDS);
            assertEquals(channels * perChannel, atServer.get());
            assertEquals(channels * perChannel, atClient.get());
            for (RdmaChannel c : clientChannels) {
                c.close();
                assertNull(c.closeFuture().get(30, TimeUnit.SECONDS), "a local close has no cause");
            }
        }
    }

    @Test
    void messagesBeforeTheHandlerIsSetAreHeldNotLost() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            InetSocketAddress address = e.address();
            CompletableFuture<RdmaChannel> serverSide = new CompletableFuture<>();
            e.listen(address, new ChannelHandler() {
                @Override
                public void onOpen(RdmaChannel channel) {
                    serverSide.complete(channel);
                }

                @Override
                public void onMessage(RdmaChannel channel, RdmaMessage message) {
                }
            });
            RdmaChannel client = e.client.connect(address, e.clientAddress, null).get(30, TimeUnit.SECONDS);
            RdmaChannel server = serverSide.get(30, TimeUnit.SECONDS);
            RegisteredBuffer out = e.server.allocate(64);
            for (int i = 0; i < 5; i++) {
                out.buffer().put(0, (byte) i);
                server.send(out, 0, 1).get(10, TimeUnit.SECONDS);
            }
            List<Integer> got = new ArrayList<>();
            CountDownLatch five = new CountDownLatch(5);
            client.setHandler((ch, m) -> {
                synchronized (got) {
                    got.add((int) m.payload().get(0));
                }
                five.countDown();
            });
            assertTrue(five.await(10, TimeUnit.SECONDS));
            assertEquals(List.of(0, 1, 2, 3, 4), got);
        }
    }

    /** Sum of rxe's rcvd_rnr_err and send_rnr_err counters over all devices. */
    public static long rnrCount() throws IOException {
        long sum = 0;
        for (String device : RxeEnvironment.requireDevices()) {
            Path counters = RxeEnvironment.SYSFS.resolve(device).resolve("ports/1/hw_counters");
            for (String name : new String[] {"rcvd_rnr_err", "send_rnr_err"}) {
                sum += Long.parseLong(Files.readString(counters.resolve(name)).trim());
            }
        }
        return sum;
    }

    static ByteBuffer le(ByteBuffer b) {
        return b.order(ByteOrder.LITTLE_ENDIAN);
    }
}
