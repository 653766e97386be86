package org.jrdma.rxe.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jrdma.BufferTooSmallException;
import org.jrdma.ChannelHandler;
import org.jrdma.RdmaChannel;
import org.jrdma.PollMode;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaMessage;
import org.jrdma.RegisteredBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Messages of any size over real rxe: above the eager size they go by rendezvous (the receiver
 * READs them), in one ordered stream with eager messages, into pooled buffers or receives the
 * application posted; too-small receives fail on both sides and the channel lives on.
 */
public abstract class RendezvousContract {
    /** {@return what this run of the contract goes over} */
    protected abstract Fabric fabric();

    public static final int MIB = 1 << 20;

    /** Checks every message against the pattern of the next expected seed, in order. */
    static final class Checker implements ChannelHandler {
        final List<String> errors = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch all;
        private final int[] sizes;
        private int next;

        Checker(int[] sizes) {
            this.sizes = sizes;
            this.all = new CountDownLatch(sizes.length);
        }

        @Override
        public void onMessage(RdmaChannel channel, RdmaMessage message) {
            int k = next++;
            if (k >= sizes.length || message.length() != sizes[k]) {
                errors.add("message " + k + " has " + message.length() + " bytes, expected "
                        + (k < sizes.length ? sizes[k] : "none"));
            } else {
                String error = Patterns.check(message.payload(), message.length(), k);
                if (error != null) {
                    errors.add(error);
                }
            }
            all.countDown();
        }
    }

    /** Sends all sizes at once from one buffer (each from its own region) and checks what arrives. */
    public static void stream(Endpoints e, int[] sizes) throws Exception {
        InetSocketAddress address = e.address();
        Checker checker = new Checker(sizes);
        e.listen(address, checker);
        RdmaChannel channel = e.connect(address, (ch, m) -> { });
        long total = 0;
        for (int size : sizes) {
            total += (size + 7) & ~7;
        }
        RegisteredBuffer out = e.client.allocate(Math.toIntExact(total));
        List<CompletableFuture<Void>> sends = new ArrayList<>();
        int offset = 0;
        for (int k = 0; k < sizes.length; k++) {
            Patterns.fill(out.buffer(), offset, sizes[k], k);
            sends.add(channel.send(out, offset, sizes[k]));
            offset += (sizes[k] + 7) & ~7;
        }
        CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(180, TimeUnit.SECONDS);
        assertTrue(checker.all.await(60, TimeUnit.SECONDS), "not every message arrived");
        assertEquals(List.of(), checker.errors);
        assertTrue(channel.isOpen());
        out.close();
    }

    /**
     * A receive budget of 1 MiB for messages of 3 MiB in all: transfers wait for bytes to come back
     * and are retried when they do (a missed retry would leave a message unread: the test times out).
     */
    @Test
    void aSmallReceiveBudgetMakesTransfersTakeTurnsAndEveryOneArrives() throws Exception {
        int[] sizes = {MIB / 2, MIB / 2 + 1, 700_000, 9, MIB - 5, 300_000};
        try (Endpoints e = new Endpoints(fabric(), RdmaConfig.builder().receiveBudget(MIB))) {
            stream(e, sizes);
        }
    }

    @Test
    void everySizeFromOneByteTo64MiBArrivesIntactAndInSendingOrderAmongEagerMessages() throws Exception {
        int[] sizes = {8, 1, 100, 4080, 4081, 70, 65536, 3, MIB + 3, 64, 4 * MIB, 5, 16 * MIB, 4000, 64 * MIB, 9, 8192};
        try (Endpoints e = new Endpoints(fabric())) {
            stream(e, sizes);
        }
    }

    @ParameterizedTest
    @EnumSource(value = PollMode.class, names = {"BUSY", "EVENT"}) // ADAPTIVE, the default, runs everywhere else
    void everyPollModeCarriesTheSameStream(PollMode mode) throws Exception {
        int[] sizes = {8, 4081, 100, MIB + 3, 64, 4 * MIB, 4000};
        try (Endpoints e = new Endpoints(fabric(), RdmaConfig.builder().pollMode(mode))) {
            stream(e, sizes);
        }
    }

    @Test
    void sixtyFourConcurrentOneMebibyteTransfersOverEightChannels() throws Exception {
        int channels = 8;
        int perChannel = 8;
        // All 64 submitted at once: each channel reads up to its rendezvousTransfers (8) at a time.
        try (Endpoints e = new Endpoints(fabric())) {
            InetSocketAddress address = e.address();
            Map<RdmaChannel, Long> lastSeed = new ConcurrentHashMap<>();
            List<String> errors = Collections.synchronizedList(new ArrayList<>());
            List<String> trace = Collections.synchronizedList(new ArrayList<>());
            CountDownLatch all = new CountDownLatch(channels * perChannel);
            e.listen(address, new ChannelHandler() {
                @Override
                public void onMessage(RdmaChannel channel, RdmaMessage message) {
                    long seed = Patterns.seedOf(message.payload());
                    Long last = lastSeed.put(channel, seed);
                    trace.add(channel.remoteAddress() + " id " + message.id() + " seed " + seed);
                    if (last != null && seed != last + 1) {
                        errors.add("seed " + seed + " after " + last + " on the channel from " + channel.remoteAddress()
                                + " (message id " + message.id() + ")");
                    }
                    String error = Patterns.check(message.payload(), message.length(), seed);
                    if (error != null) {
                        errors.add(error);
                    }
                    all.countDown();
                }

                @Override
                public void onClose(RdmaChannel channel, Throwable cause) {
                    if (cause != null) { // the receiving side's reason, should a sender see "peer disconnected"
                        errors.add("receiving channel closed: " + cause);
                    }
                }
            });
            List<CompletableFuture<Void>> sends = new ArrayList<>();
            List<RegisteredBuffer> buffers = new ArrayList<>();
            for (int c = 0; c < channels; c++) {
                RdmaChannel channel = e.connect(address, (ch, m) -> { });
                RegisteredBuffer out = e.client.allocate(perChannel * MIB);
                buffers.add(out);
                for (int k = 0; k < perChannel; k++) {
                    Patterns.fill(out.buffer(), k * MIB, MIB, c * 1000L + k);
                }
                for (int k = 0; k < perChannel; k++) {
                    sends.add(channel.send(out, k * MIB, MIB));
                }
            }
            try {
                CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(180, TimeUnit.SECONDS);
            } catch (ExecutionException failed) {
                throw new AssertionError("a send failed; receiving side: " + errors + "; delivered: " + trace, failed.getCause());
            }
            assertTrue(all.await(60, TimeUnit.SECONDS), "not every message arrived");
            assertEquals(List.of(), errors);
            assertEquals(channels, lastSeed.size());
            buffers.forEach(RegisteredBuffer::close);
        }
    }

    /** A server that posts receives when told to (a message "post"), then says "ready". */
    private static final class Poster implements ChannelHandler {
        final BlockingQueue<String> events = new LinkedBlockingQueue<>();
        final List<CompletableFuture<Integer>> receives = new ArrayList<>();
        final List<RegisteredBuffer> buffers = new ArrayList<>();
        private final RdmaContext context;
        private final int[] receiveSizes;
        private RegisteredBuffer ready;

        Poster(RdmaContext context, int... receiveSizes) {
            this.context = context;
            this.receiveSizes = receiveSizes;
        }

        @Override
        public void onMessage(RdmaChannel channel, RdmaMessage message) {
            if (ready == null) { // the first message asks for the receives
                for (int size : receiveSizes) {
                    RegisteredBuffer buffer = context.allocate(size);
                    buffers.add(buffer);
                    int index = receives.size();
                    receives.add(channel.receive(buffer, 0, size).whenComplete((n, t) ->
                            events.add("receive " + index + (t == null ? " " + n : " failed"))));
                }
                ready = context.allocate(64);
                channel.send(ready, 0, 1);
                return;
            }
            String error = Patterns.check(message.payload(), message.length(), Patterns.seedOf(message.payload()));
            events.add("handler " + Patterns.seedOf(message.payload()) + " " + message.length()
                    + (error == null ? "" : " " + error));
        }
    }

    private static RdmaChannel connectAndPost(Endpoints e, Poster poster) throws Exception {
        InetSocketAddress address = e.address();
        e.listen(address, poster);
        CountDownLatch ready = new CountDownLatch(1);
        RdmaChannel channel = e.connect(address, (ch, m) -> ready.countDown());
        RegisteredBuffer hello = e.client.allocate(64);
        channel.send(hello, 0, 1).get(30, TimeUnit.SECONDS);
        assertTrue(ready.await(30, TimeUnit.SECONDS));
        return channel;
    }

    @Test
    void messagesLandInReceivesTheApplicationPostedInOrderLargeOnesWithoutACopy() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            Poster poster = new Poster(e.server, 2 * MIB, 256, 8 * MIB);
            RdmaChannel channel = connectAndPost(e, poster);
            int[] sizes = {MIB + MIB / 2, 100, 5 * MIB, 2 * MIB};
            RegisteredBuffer out = e.client.allocate(24 * MIB);
            List<CompletableFuture<Void>> sends = new ArrayList<>();
            for (int k = 0; k < sizes.length; k++) {
                Patterns.fill(out.buffer(), k * 6 * MIB, sizes[k], 10 + k);
                sends.add(channel.send(out, k * 6 * MIB, sizes[k]));
            }
            CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
            List<String> events = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                events.add(poster.events.poll(60, TimeUnit.SECONDS));
            }
            // Receives in posting order, then the handler gets the message no receive was posted for.
            assertEquals(List.of("receive 0 " + sizes[0], "receive 1 100", "receive 2 " + sizes[2], "handler 13 " + sizes[3]),
                    events);
            for (int k = 0; k < 3; k++) {
                assertEquals(null, Patterns.check(poster.buffers.get(k).buffer(), sizes[k], 10 + k), "receive " + k);
            }
        }
    }

    @Test
    void aReceiveTooSmallFailsOnBothSidesWithTheNeededSizeAndTheChannelGoesOn() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            Poster poster = new Poster(e.server, MIB);
            RdmaChannel channel = connectAndPost(e, poster);
            RegisteredBuffer out = e.client.allocate(2 * MIB);
            Patterns.fill(out.buffer(), 0, 2 * MIB, 1);
            ExecutionException sent = assertThrows(ExecutionException.class,
                    () -> channel.send(out, 0, 2 * MIB).get(60, TimeUnit.SECONDS));
            BufferTooSmallException senderSide = assertInstanceOf(BufferTooSmallException.class, sent.getCause());
            assertEquals(2L * MIB, senderSide.requiredSize());
            assertEquals(MIB, senderSide.bufferSize());
            assertEquals("receive 0 failed", poster.events.poll(30, TimeUnit.SECONDS));
            ExecutionException received = assertThrows(ExecutionException.class,
                    () -> poster.receives.get(0).get(1, TimeUnit.SECONDS));
            BufferTooSmallException receiverSide = assertInstanceOf(BufferTooSmallException.class, received.getCause());
            assertEquals(2L * MIB, receiverSide.requiredSize());
            // The channel lives on: the next message goes to the handler intact.
            Patterns.fill(out.buffer(), 0, MIB / 2, 2);
            channel.send(out, 0, MIB / 2).get(60, TimeUnit.SECONDS);
            assertEquals("handler 2 " + MIB / 2, poster.events.poll(30, TimeUnit.SECONDS));
            assertTrue(channel.isOpen());
        }
    }

    @Test
    void thePeersMaxMessageSizeIsEnforcedBeforeAnythingIsSent() throws Exception {
        try (Endpoints e = new Endpoints(fabric(), RdmaConfig.builder().maxMessageSize(MIB))) {
            InetSocketAddress address = e.address();
            e.listen(address, (ch, m) -> { });
            RdmaChannel channel = e.connect(address, (ch, m) -> { });
            assertEquals(MIB, channel.maxMessageSize());
            RegisteredBuffer out = e.client.allocate(2 * MIB);
            IllegalArgumentException tooLarge = assertThrows(IllegalArgumentException.class,
                    () -> channel.send(out, 0, MIB + 1));
            assertTrue(tooLarge.getMessage().contains("maxMessageSize"), tooLarge.getMessage());
            channel.send(out, 0, MIB).get(60, TimeUnit.SECONDS);
            assertTrue(channel.isOpen());
        }
    }
}
