package org.jrdma.rxe.contract;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jrdma.Access;
import org.jrdma.RdmaChannel;
import org.jrdma.RegisteredBuffer;
import org.jrdma.keyed.DataValidationException;
import org.jrdma.keyed.DestinationTooSmallException;
import org.jrdma.keyed.FetchCancelledException;
import org.jrdma.keyed.FetchFailedException;
import org.jrdma.keyed.FetchTimeoutException;
import org.jrdma.keyed.Fetched;
import org.jrdma.keyed.KeyedChannel;
import org.jrdma.keyed.KeyedOptions;
import org.jrdma.keyed.KeyedStore;
import org.jrdma.keyed.TransferKey;
import org.junit.jupiter.api.Test;

/**
 * Keyed transfers (TensorFlow's verbs transport) over every transport (KeyedTransferTest: verbs in the
 * VM; TcpKeyedTransferTest, ShmKeyedTransferTest: the host): fetches before and after the value is
 * published, dead values, destinations too small, cleanup by step, the deadline, a fetch the caller
 * cancels, many fetches in flight both ways, and peers that misbehave (a bogus key length, a forged
 * token, a flood of fetches) ending their own channel only.
 */
public abstract class KeyedTransferContract {
    protected abstract Fabric fabric();

    private static final byte[] META = "f32[32,32]".getBytes(StandardCharsets.US_ASCII);

    /** A producer context (server) with a store and a consumer (client) attached to one channel. */
    private static final class Setup implements AutoCloseable {
        final Endpoints e;
        final KeyedStore store = new KeyedStore();
        final InetSocketAddress address;
        final BlockingQueue<KeyedChannel> accepted = new LinkedBlockingQueue<>();
        final KeyedOptions options;

        Setup(Fabric fabric, KeyedOptions options) {
            this.e = new Endpoints(fabric);
            this.address = e.address();
            this.options = options;
            e.listen(address, KeyedChannel.accepting(e.server, store, options, accepted::add));
        }

        KeyedChannel consumer(KeyedStore own) throws Exception {
            RdmaChannel channel = e.connect(address, (ch, m) -> { });
            return KeyedChannel.attach(e.client, channel, own, options);
        }

        RegisteredBuffer value(int size, int seed) {
            RegisteredBuffer b = e.server.allocate(size);
            ByteBuffer bytes = b.buffer();
            for (int i = 0; i < size; i++) {
                bytes.put(i, (byte) (i * 31 + seed));
            }
            return b;
        }

        /** Publishes exactly {@code size} bytes of the pattern (a pool buffer may be larger). */
        void publish(TransferKey key, int size, int seed) {
            store.publish(key, value(size, seed), 0, size, META);
        }

        @Override
        public void close() {
            e.close();
        }
    }

    private static void assertPattern(RegisteredBuffer b, int offset, int size, int seed) {
        ByteBuffer bytes = b.buffer();
        for (int i = 0; i < size; i++) {
            if (bytes.get(offset + i) != (byte) (i * 31 + seed)) {
                throw new AssertionError("byte " + i + " of " + size + " (seed " + seed + ") is wrong");
            }
        }
    }

    /** Waits until the producer holds {@code n} fetches for values not published yet. */
    private static void awaitWaiting(KeyedStore store, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (store.waitingFetches() < n && System.nanoTime() < deadline) {
            new CountDownLatch(1).await(20, TimeUnit.MILLISECONDS);
        }
        assertEquals(n, store.waitingFetches(), "fetches waiting at the producer");
    }

    private static Throwable failure(CompletableFuture<?> f) {
        return assertThrows(ExecutionException.class, () -> f.get(60, TimeUnit.SECONDS)).getCause();
    }

    @Test
    void aFetchBeforeThePublishWaitsAndOneAfterIsAnsweredAtOnce() throws Exception {
        try (Setup s = new Setup(fabric(), KeyedOptions.DEFAULTS)) {
            KeyedChannel consumer = s.consumer(null);
            TransferKey key = new TransferKey("layer1/weights", 3);
            RegisteredBuffer local = s.e.client.allocate(8192); // local only: registered for the fetch alone
            CompletableFuture<Fetched> early = consumer.fetch(key, local, 100, 5000);
            awaitWaiting(s.store, 1);
            assertFalse(early.isDone(), "nothing is published yet");
            s.publish(key, 4096, 1);
            Fetched got = early.get(60, TimeUnit.SECONDS);
            assertEquals(4096, got.length());
            assertArrayEquals(META, got.metadata());
            assertFalse(got.dead());
            assertPattern(local, 100, 4096, 1);

            RegisteredBuffer remote = s.e.client.allocate(4096, Access.REMOTE_WRITE); // written through its own token
            Fetched again = consumer.fetch(key, remote).get(60, TimeUnit.SECONDS);
            assertEquals(4096, again.length());
            assertPattern(remote, 0, 4096, 1);

            s.store.publishDead(new TransferKey("layer1/dead", 3), META);
            Fetched dead = consumer.fetch(new TransferKey("layer1/dead", 3), remote).get(60, TimeUnit.SECONDS);
            assertTrue(dead.dead());
            assertEquals(0, dead.length());
            assertArrayEquals(META, dead.metadata());
        }
    }

    @Test
    void aDestinationTooSmallFailsWithTheNeededSizeOrIsReplacedWhenAsked() throws Exception {
        try (Setup s = new Setup(fabric(), KeyedOptions.DEFAULTS)) {
            TransferKey key = new TransferKey("big", 1);
            s.publish(key, 64 * 1024, 2);
            KeyedChannel strict = s.consumer(null);
            DestinationTooSmallException small = assertInstanceOf(DestinationTooSmallException.class,
                    failure(strict.fetch(key, s.e.client.allocate(1024))));
            assertEquals(64 * 1024, small.needed());

            RdmaChannel channel = s.e.connect(s.address, (ch, m) -> { });
            KeyedChannel lenient = KeyedChannel.attach(s.e.client, channel, null, KeyedOptions.DEFAULTS.withRetryTooSmall(true));
            Fetched got = lenient.fetch(key, s.e.client.allocate(1024)).get(60, TimeUnit.SECONDS);
            assertEquals(64 * 1024, got.length());
            assertTrue(got.buffer().length() >= 64 * 1024);
            assertPattern(got.buffer(), 0, 64 * 1024, 2);
            got.buffer().close();
        }
    }

    @Test
    void cleanupOfAStepCancelsItsWaitingFetchesAndDropsItsValues() throws Exception {
        try (Setup s = new Setup(fabric(), KeyedOptions.DEFAULTS.withFetchTimeoutMillis(1000))) {
            KeyedChannel consumer = s.consumer(null);
            s.publish(new TransferKey("kept", 8), 64, 3);
            s.publish(new TransferKey("dropped", 7), 64, 4);
            CompletableFuture<Fetched> waiting = consumer.fetch(new TransferKey("never", 7), s.e.client.allocate(64));
            awaitWaiting(s.store, 1);
            assertEquals(1, s.store.cleanup(7));
            assertEquals(0, s.store.waitingFetches());
            assertInstanceOf(FetchCancelledException.class, failure(waiting));
            assertInstanceOf(FetchTimeoutException.class,
                    failure(consumer.fetch(new TransferKey("dropped", 7), s.e.client.allocate(64))), "its value is gone");
            assertEquals(64, consumer.fetch(new TransferKey("kept", 8), s.e.client.allocate(64)).get(60, TimeUnit.SECONDS).length());
            assertTrue(consumer.channel().isOpen(), "timeouts and cancels leave the channel open");
        }
    }

    @Test
    void aFetchTheCallerCancelsIsDroppedAtTheProducerBeforeItsFutureSaysSo() throws Exception {
        try (Setup s = new Setup(fabric(), KeyedOptions.DEFAULTS)) {
            KeyedChannel consumer = s.consumer(null);
            RegisteredBuffer destination = s.e.client.allocate(64, Access.REMOTE_WRITE); // written through its own token
            for (int i = 0; i < 64; i++) {
                destination.buffer().put(i, (byte) 0x11);
            }
            TransferKey later = new TransferKey("later", 2);
            CompletableFuture<Fetched> fetch = consumer.fetch(later, destination);
            awaitWaiting(s.store, 1);
            assertFalse(fetch.cancel(true), "not cancelled before the producer confirmed");
            assertThrows(CancellationException.class, () -> fetch.get(60, TimeUnit.SECONDS));
            assertTrue(fetch.isCancelled());
            assertEquals(0, s.store.waitingFetches(), "the producer dropped it before the future said so");
            // Publishing now writes nothing into the destination the caller was told is free: a later
            // fetch on the same queue pair is answered after any write the publish could have made.
            s.publish(later, 64, 9);
            s.publish(new TransferKey("after", 2), 8, 1);
            assertEquals(8, consumer.fetch(new TransferKey("after", 2), s.e.client.allocate(8)).get(60, TimeUnit.SECONDS).length());
            for (int i = 0; i < 64; i++) {
                assertEquals((byte) 0x11, destination.buffer().get(i), "byte " + i + " of the cancelled fetch's destination");
            }
            assertTrue(consumer.channel().isOpen(), "a cancel leaves the channel open");
        }
    }

    @Test
    void aValueTheProducerCouldNotMakeFailsItsFetchesWithTheProducersReason() throws Exception {
        try (Setup s = new Setup(fabric(), KeyedOptions.DEFAULTS)) {
            KeyedChannel consumer = s.consumer(null);
            TransferKey key = new TransferKey("grad/layer3", 5);
            CompletableFuture<Fetched> waiting = consumer.fetch(key, s.e.client.allocate(64));
            awaitWaiting(s.store, 1);
            s.store.publishError(key, "NaN in layer 3 (step 5)");
            Throwable failed = failure(waiting);
            assertInstanceOf(FetchFailedException.class, failed);
            assertEquals("NaN in layer 3 (step 5)", ((FetchFailedException) failed).producerReason());
            assertInstanceOf(FetchFailedException.class, failure(consumer.fetch(key, s.e.client.allocate(64))),
                    "a later fetch of the key too");
            assertTrue(consumer.channel().isOpen(), "an error leaves the channel open");
        }
    }

    @Test
    void aFetchThatValidatesDataRefusesBytesThatDoNotMatchTheProducersChecksum() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            // A producer that answers every FETCH with a DONE of 4 bytes and a checksum they do not have.
            InetSocketAddress address = e.address();
            BlockingQueue<Boolean> asked = new LinkedBlockingQueue<>();
            e.listen(address, (ch, m) -> {
                ByteBuffer in = m.payload().order(ByteOrder.LITTLE_ENDIAN);
                asked.add((in.get(1) & 1) != 0);
                RegisteredBuffer out = e.server.allocate(32);
                out.buffer().order(ByteOrder.LITTLE_ENDIAN).put(0, (byte) 2).put(1, (byte) 2).putShort(2, (short) 0)
                        .putInt(4, 4).putLong(8, in.getLong(8)).putInt(16, 0x12345678);
                ch.send(out, 0, 20).whenComplete((v, t) -> out.close());
            });
            KeyedChannel consumer = KeyedChannel.attach(e.client, e.connect(address, (ch, m) -> { }), null,
                    KeyedOptions.DEFAULTS.withDataValidation(true));
            RegisteredBuffer destination = e.client.allocate(64);
            for (int i = 0; i < 4; i++) {
                destination.buffer().put(i, (byte) 0x5a); // whose CRC-32C is not the producer's 0x12345678
            }
            Throwable refused = failure(consumer.fetch(new TransferKey("x", 1), destination));
            assertInstanceOf(DataValidationException.class, refused);
            assertEquals(Boolean.TRUE, asked.poll(30, TimeUnit.SECONDS), "the FETCH asked for the checksum");
        }
        // A real producer: values of every size pass the check.
        try (Setup s = new Setup(fabric(), KeyedOptions.DEFAULTS.withDataValidation(true))) {
            KeyedChannel consumer = s.consumer(null);
            for (int size : new int[] {1, 4096, 1 << 20}) {
                TransferKey key = new TransferKey("checked", size);
                s.publish(key, size, size % 251);
                RegisteredBuffer d = s.e.client.allocate(size);
                assertEquals(size, consumer.fetch(key, d).get(60, TimeUnit.SECONDS).length());
                assertPattern(d, 0, size, size % 251);
            }
        }
    }

    @Test
    void manyFetchesInFlightBothWaysOfEverySize() throws Exception {
        try (Setup s = new Setup(fabric(), KeyedOptions.DEFAULTS)) {
            KeyedStore clientStore = new KeyedStore();
            KeyedChannel consumer = s.consumer(clientStore);
            KeyedChannel producerSide = s.accepted.poll(30, TimeUnit.SECONDS);
            int[] sizes = {1, 4096, 65536, 4 << 20};
            List<CompletableFuture<Fetched>> fetches = new ArrayList<>();
            List<RegisteredBuffer> destinations = new ArrayList<>();
            for (int i = 0; i < 32; i++) { // requests first, values afterwards: they all wait, then all go
                int size = sizes[i % sizes.length];
                RegisteredBuffer d = s.e.client.allocate(size, Access.REMOTE_WRITE);
                destinations.add(d);
                fetches.add(consumer.fetch(new TransferKey("t" + i, 1), d, 0, size));
            }
            awaitWaiting(s.store, 32);
            for (int i = 0; i < 32; i++) {
                int size = sizes[i % sizes.length];
                s.publish(new TransferKey("t" + i, 1), size, i);
            }
            assertEquals(0, s.store.waitingFetches());
            // The other way at the same time: the server fetches what the client publishes.
            RegisteredBuffer clientValue = s.e.client.allocate(65536);
            ByteBuffer clientBytes = clientValue.buffer();
            for (int i = 0; i < 65536; i++) {
                clientBytes.put(i, (byte) (i * 31 + 99));
            }
            clientStore.publish(new TransferKey("from-client", 1), clientValue, new byte[0]);
            RegisteredBuffer serverDestination = s.e.server.allocate(65536);
            assertEquals(65536, producerSide.fetch(new TransferKey("from-client", 1), serverDestination).get(60, TimeUnit.SECONDS).length());
            assertPattern(serverDestination, 0, 65536, 99);
            for (int i = 0; i < 32; i++) {
                Fetched got = fetches.get(i).get(60, TimeUnit.SECONDS);
                assertEquals(sizes[i % sizes.length], got.length());
                assertPattern(destinations.get(i), 0, got.length(), i);
            }
        }
    }

    // ---- misbehaving peers: raw messages (docs/keyed.md) ---------------------------------------

    private static int fetchMessage(ByteBuffer out, long id, String name, long step, long address, int rkey, int capacity,
                                    int claimedNameLength) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        out.order(ByteOrder.LITTLE_ENDIAN).put(0, (byte) 1).put(1, (byte) 0).putShort(2, (short) claimedNameLength)
                .putInt(4, capacity).putLong(8, id).putLong(16, step).putLong(24, address).putInt(32, rkey).putInt(36, 0);
        out.put(40, n);
        return 40 + n.length;
    }

    private static void assertClosesSoon(RdmaChannel channel, String what) throws Exception {
        channel.closeFuture().get(60, TimeUnit.SECONDS);
        assertFalse(channel.isOpen(), what);
    }

    @Test
    void misbehavingPeersEndOnlyTheirOwnChannel() throws Exception {
        try (Setup s = new Setup(fabric(), KeyedOptions.DEFAULTS.withMaxWaitingFetches(8))) {
            TransferKey key = new TransferKey("w", 1);
            s.publish(key, 4096, 5);
            KeyedChannel good = s.consumer(null);
            RegisteredBuffer out = s.e.client.allocate(2048);

            RdmaChannel bogus = s.e.connect(s.address, (ch, m) -> { });
            int n = fetchMessage(out.buffer(), 1, "w", 1, 0, 0, 4096, 2000); // the name claims 2000 bytes
            bogus.send(out, 0, n).get(30, TimeUnit.SECONDS);
            assertClosesSoon(bogus, "a bogus key length ends that channel");

            RdmaChannel forger = s.e.connect(s.address, (ch, m) -> { });
            RegisteredBuffer victim = s.e.client.allocate(4096, Access.REMOTE_WRITE);
            n = fetchMessage(out.buffer(), 1, "w", 1, victim.address(), victim.rkey() ^ 0x5a5a00, 4096, 1);
            forger.send(out, 0, n).get(30, TimeUnit.SECONDS);
            assertClosesSoon(forger, "a forged token fails the producer's write and ends that channel");

            RdmaChannel flooder = s.e.connect(s.address, (ch, m) -> { });
            for (int i = 0; i < 9; i++) { // unpublished keys wait; one more than maxWaitingFetches
                n = fetchMessage(out.buffer(), i, "x" + i, 1, 0, 0, 0, 2);
                flooder.send(out, 0, n).get(30, TimeUnit.SECONDS);
            }
            assertClosesSoon(flooder, "a flood of fetches ends that channel");

            RegisteredBuffer d = s.e.client.allocate(4096);
            assertEquals(4096, good.fetch(key, d).get(60, TimeUnit.SECONDS).length(), "the well-behaved channel goes on");
            assertPattern(d, 0, 4096, 5);
        }
    }
}
