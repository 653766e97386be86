package org.jrdma.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jrdma.Access;
import org.jrdma.Rdma;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaChannel;
import org.jrdma.RegisteredBuffer;
import org.jrdma.kv.KvException;
import org.jrdma.kv.KvOptions;
import org.jrdma.kv.KvServer;
import org.jrdma.kv.KvWorker;
import org.jrdma.kv.MergeFunction;
import org.junit.jupiter.api.Test;

/**
 * ps-lite's push/pull over every transport (KvTest: verbs in the VM; TcpKvTest, ShmKvTest: the host),
 * in one process: two servers each owning half of the key space, three workers pushing float32 values
 * of 4 B..256 KiB for several rounds and pulling them back, checked against a pure-Java model of the
 * same sums; a server that goes away fails the pending requests instead of hanging them; a worker that
 * sends garbage loses only its own channel; a push is applied whole or not at all.
 */
abstract class KvContract {
    abstract Fabric fabric();

    private static final int[] SIZES = {4, 64, 4096, 65536, 256 << 10};

    private static long[] keys(int n) {
        long[] keys = new long[n];
        long step = Long.divideUnsigned(-1L, n);
        for (int i = 0; i < n; i++) {
            keys[i] = step * i + 7; // spread over the whole unsigned key space: both servers get some
        }
        return keys;
    }

    /** Element j of the value worker w pushes for key i in a round: small integers, exact in float32. */
    private static float element(int w, int round, int i, int j) {
        return (w + 1) * (round + 1) + (i + j) % 5;
    }

    /** Waits (bounded) for a request that must succeed. */
    private static void waitFor(KvWorker worker, long timestamp, String what) throws Exception {
        try {
            worker.request(timestamp).get(120, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new AssertionError(what + " failed: " + e.getCause().getMessage(), e.getCause());
        }
    }

    /** Waits (bounded) for a request that must fail; returns why. */
    private static KvException failureOf(KvWorker worker, long timestamp) throws Exception {
        java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> worker.request(timestamp).get(120, TimeUnit.SECONDS));
        return (KvException) e.getCause();
    }

    @Test
    void workersPushAndPullAgainstAModelOfTheSums() throws Exception {
        // Five JVM threads move and sum megabytes (in the VM a two-vCPU emulated guest: Fabric raises
        // the ACK timeout for that, as a slow fabric needs).
        try (Endpoints e = new Endpoints(fabric())) {
            List<KvServer> servers = List.of(
                    KvServer.listen(e.server, e.address(), MergeFunction.float32Sum(), KvOptions.DEFAULTS),
                    KvServer.listen(e.server, e.address(), MergeFunction.float32Sum(), KvOptions.DEFAULTS));
            List<InetSocketAddress> addresses = List.of(servers.get(0).localAddress(), servers.get(1).localAddress());
            List<KvWorker> workers = new ArrayList<>();
            for (int w = 0; w < 3; w++) {
                workers.add(KvWorker.connect(e.client, addresses, e.clientAddress));
            }
            long[] keys = keys(20);
            int[] lengths = new int[keys.length];
            int total = 0;
            for (int i = 0; i < keys.length; i++) {
                lengths[i] = SIZES[i % SIZES.length];
                total += lengths[i];
            }
            double[][] model = new double[keys.length][];
            for (int i = 0; i < keys.length; i++) {
                model[i] = new double[lengths[i] / 4];
            }
            RegisteredBuffer[] values = new RegisteredBuffer[3];
            RegisteredBuffer[] pulled = new RegisteredBuffer[3];
            for (int w = 0; w < 3; w++) {
                values[w] = e.client.allocate(total);
                pulled[w] = e.client.allocate(total, Access.REMOTE_WRITE);
            }
            for (int round = 0; round < 3; round++) {
                long[] pushes = new long[3];
                for (int w = 0; w < 3; w++) { // all three push at once
                    FloatBuffer f = values[w].buffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
                    int at = 0;
                    for (int i = 0; i < keys.length; i++) {
                        for (int j = 0; j < lengths[i] / 4; j++) {
                            f.put(at++, element(w, round, i, j));
                            model[i][j] += element(w, round, i, j);
                        }
                    }
                    pushes[w] = workers.get(w).push(keys, values[w], lengths);
                }
                for (int w = 0; w < 3; w++) {
                    waitFor(workers.get(w), pushes[w], "push of round " + round + " by worker " + w);
                }
                for (int w = 0; w < 3; w++) {
                    int[] got = lengths.clone();
                    waitFor(workers.get(w), workers.get(w).pull(keys, pulled[w], got), "pull of round " + round + " by worker " + w);
                    FloatBuffer f = pulled[w].buffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
                    int at = 0;
                    for (int i = 0; i < keys.length; i++) {
                        assertEquals(lengths[i], got[i], "length of key " + i);
                        for (int j = 0; j < lengths[i] / 4; j++) {
                            float v = f.get(at++);
                            if (v != (float) model[i][j]) {
                                throw new AssertionError("round " + round + " worker " + w + " key " + i + " element " + j
                                        + ": " + v + ", the model says " + model[i][j]);
                            }
                        }
                    }
                }
            }
            assertEquals(keys.length, servers.get(0).size() + servers.get(1).size());
            assertTrue(servers.get(0).size() > 0 && servers.get(1).size() > 0, "both servers own keys");

            // A server goes away: a pull that needs it fails, it does not hang.
            servers.get(1).close();
            KvWorker worker = workers.get(0);
            long pull = worker.pull(keys, pulled[0], lengths.clone());
            failureOf(worker, pull);
        }
    }

    @Test
    void aWorkerThatSendsGarbageLosesOnlyItsOwnChannel() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            KvServer server = KvServer.listen(e.server, e.address(), MergeFunction.float32Sum(), KvOptions.DEFAULTS);
            KvWorker good = KvWorker.connect(e.client, List.of(server.localAddress()), e.clientAddress);
            RdmaChannel raw = e.client.connect(server.localAddress(), e.clientAddress, (ch, m) -> { }).get(30, TimeUnit.SECONDS);
            RegisteredBuffer out = e.client.allocate(64);
            ByteBuffer b = out.buffer().order(ByteOrder.LITTLE_ENDIAN);
            b.put(0, (byte) 1).putInt(4, 1_000_000_000).putLong(8, 1); // a PUSH claiming a billion keys
            raw.send(out, 0, 16).get(30, TimeUnit.SECONDS);
            raw.closeFuture().get(60, TimeUnit.SECONDS);
            assertEquals(0, server.size(), "nothing was stored for it");

            RegisteredBuffer value = e.client.allocate(8);
            value.buffer().order(ByteOrder.LITTLE_ENDIAN).putFloat(0, 1.5f).putFloat(4, 2.5f);
            waitFor(good, good.push(new long[] {42}, value, new int[] {8}), "the good worker's push");
            RegisteredBuffer into = e.client.allocate(8, Access.REMOTE_WRITE);
            int[] got = {8};
            waitFor(good, good.pull(new long[] {42}, into, got), "the good worker's pull");
            assertEquals(8, got[0]);
            assertEquals(2.5f, into.buffer().order(ByteOrder.LITTLE_ENDIAN).getFloat(4));
            server.close();
        }
    }

    @Test
    void pushesOfALargeValueGoIntoItsSlotAndStayInOrder() throws Exception {
        // overwrite() makes order visible: the last push must be what a pull finds.
        KvOptions options = new KvOptions(1024, 1 << 20, 4096, 1 << 20);
        try (Endpoints e = new Endpoints(fabric())) {
            KvServer server = KvServer.listen(e.server, e.address(), MergeFunction.overwrite(), options);
            KvWorker worker = KvWorker.connect(e.client, List.of(server.localAddress()), e.clientAddress);
            long[] key = {42};
            int[] length = {64 << 10};
            RegisteredBuffer[] values = new RegisteredBuffer[12];
            for (int v = 0; v < values.length; v++) {
                values[v] = e.client.allocate(length[0]);
                Patterns.fill(values[v].buffer(), 0, length[0], v + 1);
            }
            waitFor(worker, worker.push(key, values[0], length), "the first push");
            assertEquals(1, worker.slots(), "the server gave the key a slot");
            waitFor(worker, worker.push(key, values[1], length), "a push into the slot");
            // Eleven more at once: the first takes the slot, the others queue behind it as messages.
            long[] pushes = new long[values.length];
            for (int v = 1; v < values.length; v++) {
                pushes[v] = worker.push(key, values[v], length);
            }
            for (int v = 1; v < values.length; v++) {
                waitFor(worker, pushes[v], "push " + v);
            }
            RegisteredBuffer into = e.client.allocate(length[0], Access.REMOTE_WRITE);
            int[] got = length.clone();
            waitFor(worker, worker.pull(key, into, got), "the pull");
            assertEquals(null, Patterns.check(into.buffer(), length[0], values.length), "the last push wins");
            // And once more through the slot alone, after the queue has drained.
            waitFor(worker, worker.push(key, values[3], length), "a last push into the slot");
            waitFor(worker, worker.pull(key, into, got), "the last pull");
            assertEquals(null, Patterns.check(into.buffer(), length[0], 4), "the push through the slot");
            server.close();
        }
    }

    @Test
    void aBarrierWaitsForEveryWorkerAndFailsWhenOneLeaves() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            KvServer server = KvServer.listen(e.server, e.address(), MergeFunction.float32Sum(), KvOptions.DEFAULTS);
            List<KvWorker> workers = new ArrayList<>();
            for (int w = 0; w < 3; w++) {
                workers.add(KvWorker.connect(e.client, List.of(server.localAddress()), e.clientAddress));
            }
            long first = workers.get(0).barrier(3);
            long second = workers.get(1).barrier(3);
            // The third is not there yet: a pull by the first worker round-trips, the barrier still waits.
            RegisteredBuffer value = e.client.allocate(4);
            waitFor(workers.get(0), workers.get(0).push(new long[] {1}, value, new int[] {4}), "a push while waiting");
            assertTrue(!workers.get(0).request(first).isDone() && !workers.get(1).request(second).isDone());
            long third = workers.get(2).barrier(3);
            for (int w = 0; w < 3; w++) {
                waitFor(workers.get(w), new long[] {first, second, third}[w], "barrier of worker " + w);
            }
            // A size that differs from the waiting ones' is refused; a worker that leaves breaks the barrier.
            long waiting = workers.get(0).barrier(3);
            long wrong = workers.get(1).barrier(2);
            KvException mismatch = failureOf(workers.get(1), wrong);
            assertTrue(mismatch.getMessage().contains("disagree"), mismatch.getMessage());
            workers.get(2).close();
            KvException broken = failureOf(workers.get(0), waiting);
            assertTrue(broken.getMessage().contains("went away"), broken.getMessage());
            server.close();
        }
    }

    @Test
    void aWriteIntoASlotItWasNeverGivenClosesOnlyThatWorkersChannel() throws Exception {
        KvOptions options = new KvOptions(1024, 1 << 20, 4096, 1 << 20);
        try (Endpoints e = new Endpoints(fabric())) {
            KvServer server = KvServer.listen(e.server, e.address(), MergeFunction.float32Sum(), options);
            KvWorker good = KvWorker.connect(e.client, List.of(server.localAddress()), e.clientAddress);
            java.util.concurrent.CompletableFuture<org.jrdma.RemoteBuffer> token = new java.util.concurrent.CompletableFuture<>();
            RdmaChannel raw = e.client.connect(server.localAddress(), e.clientAddress, new org.jrdma.ChannelHandler() {
                @Override
                public void onMessage(RdmaChannel channel, org.jrdma.RdmaMessage message) {
                }

                @Override
                public void onToken(RdmaChannel channel, org.jrdma.RemoteBuffer t) {
                    token.complete(t);
                }
            }).get(30, TimeUnit.SECONDS);
            // A proper PUSH of an 8 KiB key earns a slot (id 0) and its token...
            RegisteredBuffer out = e.client.allocate(16 + 16 + 8192);
            ByteBuffer b = out.buffer().order(ByteOrder.LITTLE_ENDIAN);
            b.put(32, new byte[8192]).put(0, (byte) 1).put(1, (byte) 0).putShort(2, (short) 0).putInt(4, 1).putLong(8, 1)
                    .putLong(16, 7).putInt(24, 8192).putInt(28, 0);
            raw.send(out, 0, 16 + 16 + 8192).get(30, TimeUnit.SECONDS);
            org.jrdma.RemoteBuffer slot = token.get(60, TimeUnit.SECONDS);
            // ...then a write into it naming slot 5, which it was never given.
            raw.writeWithImmediate(out, 32, slot, 0, 8192, 5);
            raw.closeFuture().get(60, TimeUnit.SECONDS);

            RegisteredBuffer value = e.client.allocate(8192);
            value.buffer().order(ByteOrder.LITTLE_ENDIAN).putFloat(0, 2.5f);
            waitFor(good, good.push(new long[] {7}, value, new int[] {8192}), "the good worker's push");
            RegisteredBuffer into = e.client.allocate(8192, Access.REMOTE_WRITE);
            waitFor(good, good.pull(new long[] {7}, into, new int[] {8192}), "the good worker's pull");
            assertEquals(2.5f, into.buffer().order(ByteOrder.LITTLE_ENDIAN).getFloat(0), "the raw push counted once, as zeros");
            server.close();
        }
    }

    /** A merge that writes the pushed value, then refuses key {@code refused}: what it wrote must not stay. */
    private static MergeFunction overwriteRefusing(long refused) {
        return (key, stored, pushed) -> {
            stored.duplicate().put(pushed.duplicate());
            if (key == refused) {
                throw new IllegalStateException("key " + refused + " is refused");
            }
        };
    }

    @Test
    void aPushTheMergeFunctionRefusesChangesNoKeyAndCreatesNone() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            KvServer server = KvServer.listen(e.server, e.address(), overwriteRefusing(2), KvOptions.DEFAULTS);
            KvWorker worker = KvWorker.connect(e.client, List.of(server.localAddress()), e.clientAddress);
            RegisteredBuffer values = e.client.allocate(64);
            RegisteredBuffer into = e.client.allocate(64, Access.REMOTE_WRITE);
            Patterns.fill(values.buffer(), 0, 16, 1);
            // Two new keys, the second refused: neither is created.
            KvException refused = failureOf(worker, worker.push(new long[] {1, 2}, values, new int[] {8, 8}));
            assertTrue(refused.getMessage().contains("merge function refused"), refused.getMessage());
            assertEquals(0, server.size(), "no key was created");
            assertTrue(failureOf(worker, worker.pull(new long[] {1}, into, new int[] {8})).getMessage()
                    .contains("never pushed"), "key 1 reads as never pushed, not as zeros");
            // Key 1 alone: created with its value, and its length was not fixed by the refused push.
            waitFor(worker, worker.push(new long[] {1}, values, new int[] {16}), "key 1's push");
            // Key 1 again, with key 2 refused: key 1 keeps the value of the push that was applied.
            Patterns.fill(values.buffer(), 0, 32, 2);
            failureOf(worker, worker.push(new long[] {1, 2}, values, new int[] {16, 16}));
            int[] got = {16};
            waitFor(worker, worker.pull(new long[] {1}, into, got), "key 1's pull");
            assertEquals(16, got[0]);
            Patterns.fill(values.buffer(), 0, 16, 1);
            for (int i = 0; i < 16; i++) {
                assertEquals(values.buffer().get(i), into.buffer().get(i), "byte " + i + " of key 1");
            }
            assertEquals(1, server.size());
            server.close();
        }
    }

    @Test
    void aValueTheBuiltInMergeRefusesLeavesTheOtherKeysOfThePushAlone() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            KvServer server = KvServer.listen(e.server, e.address(), MergeFunction.float32Sum(), KvOptions.DEFAULTS);
            KvWorker worker = KvWorker.connect(e.client, List.of(server.localAddress()), e.clientAddress);
            RegisteredBuffer values = e.client.allocate(64);
            FloatBuffer floats = values.buffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
            floats.put(0, 1f).put(1, 2f);
            waitFor(worker, worker.push(new long[] {1}, values, new int[] {8}), "key 1's push");
            // Key 1 (8 bytes, fine) and key 3 (6 bytes: not float32s): neither is applied.
            floats.put(0, 10f).put(1, 20f);
            failureOf(worker, worker.push(new long[] {1, 3}, values, new int[] {8, 6}));
            RegisteredBuffer into = e.client.allocate(64, Access.REMOTE_WRITE);
            waitFor(worker, worker.pull(new long[] {1}, into, new int[] {8}), "key 1's pull");
            FloatBuffer pulled = into.buffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
            assertEquals(1f, pulled.get(0), "key 1 unchanged");
            assertEquals(2f, pulled.get(1), "key 1 unchanged");
            assertEquals(1, server.size(), "key 3 was not created");
            // Key 3 with a valid length: its length was not fixed by the refused push.
            waitFor(worker, worker.push(new long[] {3}, values, new int[] {8}), "key 3's push");
            server.close();
        }
    }

    @Test
    void aKeyTwiceInOnePushIsRefusedByTheWorkerAndByTheServer() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            KvServer server = KvServer.listen(e.server, e.address(), MergeFunction.float32Sum(), KvOptions.DEFAULTS);
            KvWorker worker = KvWorker.connect(e.client, List.of(server.localAddress()), e.clientAddress);
            RegisteredBuffer values = e.client.allocate(64);
            assertThrows(IllegalArgumentException.class, () -> worker.push(new long[] {5, 6, 5}, values, new int[] {4, 4, 4}));
            // A peer that sends one anyway (a PUSH of key 5 twice) is answered with a refusal.
            BlockingQueue<ByteBuffer> answers = new LinkedBlockingQueue<>();
            RdmaChannel raw = e.client.connect(server.localAddress(), e.clientAddress, (ch, m) -> {
                ByteBuffer copy = ByteBuffer.allocate(m.length()).order(ByteOrder.LITTLE_ENDIAN);
                copy.put(m.payload()).flip();
                answers.add(copy);
            }).get(30, TimeUnit.SECONDS);
            RegisteredBuffer out = e.client.allocate(64);
            ByteBuffer b = out.buffer().order(ByteOrder.LITTLE_ENDIAN);
            b.put(0, (byte) 1).putInt(4, 2).putLong(8, 77); // PUSH, 2 keys, timestamp 77
            b.putLong(16, 5).putInt(24, 4).putInt(28, 0).putLong(32, 5).putInt(40, 4).putInt(44, 0);
            b.putFloat(48, 1f).putFloat(52, 1f);
            raw.send(out, 0, 56).get(30, TimeUnit.SECONDS);
            ByteBuffer answer = answers.poll(60, TimeUnit.SECONDS);
            assertTrue(answer != null, "no answer");
            assertEquals(2, answer.get(0), "an ACK");
            assertEquals(7, answer.get(1), "status: a key twice in one push");
            assertEquals(77, answer.getLong(8));
            assertEquals(0, server.size(), "nothing was applied");
            server.close();
        }
    }

    /** A key server 0 of 2 owns, and one server 1 owns (ps-lite's even split of the unsigned key space). */
    private static final long KEY_AT_0 = 7;
    private static final long KEY_AT_1 = Long.MIN_VALUE + 7;

    /** A float32 sum that, for KEY_AT_1, first waits until {@code release} opens (it holds its server's loop). */
    private static MergeFunction sumHeldAt1(CountDownLatch entered, CountDownLatch release) {
        MergeFunction sum = MergeFunction.float32Sum();
        return (key, stored, pushed) -> {
            if (key == KEY_AT_1) {
                entered.countDown();
                try {
                    release.await(120, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            sum.merge(key, stored, pushed);
        };
    }

    @Test
    void aRequestFailsOnlyOnceEveryServerSettledItsPartAndNamesTheServersThatDidNotApplyIt() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (Endpoints e = new Endpoints(fabric());
             RdmaContext second = Rdma.open(fabric().serverConfig(RdmaConfig.builder()))) {
            KvServer server0 = KvServer.listen(e.server, e.address(), MergeFunction.float32Sum(), KvOptions.DEFAULTS);
            KvServer server1 = KvServer.listen(second, e.address(), sumHeldAt1(entered, release), KvOptions.DEFAULTS);
            KvWorker worker = KvWorker.connect(e.client, List.of(server0.localAddress(), server1.localAddress()), e.clientAddress);
            RegisteredBuffer values = e.client.allocate(64);
            waitFor(worker, worker.push(new long[] {KEY_AT_0}, values, new int[] {8}), "the first push");
            // Server 0 refuses at once (another length), server 1 holds its part.
            long refused = worker.push(new long[] {KEY_AT_0, KEY_AT_1}, values, new int[] {16, 8});
            CompletableFuture<Void> outcome = worker.request(refused);
            assertTrue(entered.await(60, TimeUnit.SECONDS), "server 1 never merged");
            assertThrows(TimeoutException.class, () -> outcome.get(500, TimeUnit.MILLISECONDS),
                    "the request completed while server 1 still held the values");
            release.countDown();
            ExecutionException failed = assertThrows(ExecutionException.class, () -> outcome.get(60, TimeUnit.SECONDS));
            assertTrue(failed.getCause().getMessage().contains("server 0 refused"), failed.getCause().getMessage());
            assertEquals(0, failed.getCause().getSuppressed().length, "server 1 applied its part");
            RegisteredBuffer into = e.client.allocate(8, Access.REMOTE_WRITE);
            waitFor(worker, worker.pull(new long[] {KEY_AT_1}, into, new int[] {8}), "the pull from server 1");
            server0.close();
            server1.close();
        }
    }

    @Test
    void aServerThatGoesAwayFailsOnlyTheRequestsWithAPartThere() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (Endpoints e = new Endpoints(fabric());
             RdmaContext second = Rdma.open(fabric().serverConfig(RdmaConfig.builder()))) {
            KvServer server0 = KvServer.listen(e.server, e.address(), MergeFunction.float32Sum(), KvOptions.DEFAULTS);
            KvServer server1 = KvServer.listen(second, e.address(), sumHeldAt1(entered, release), KvOptions.DEFAULTS);
            KvWorker worker = KvWorker.connect(e.client, List.of(server0.localAddress(), server1.localAddress()), e.clientAddress);
            RegisteredBuffer values = e.client.allocate(64);
            long onlyAt1 = worker.push(new long[] {KEY_AT_1}, values, new int[] {8});
            assertTrue(entered.await(60, TimeUnit.SECONDS), "server 1 never merged");
            server0.close(); // server 0 goes away while the push that only went to server 1 is held there
            long atBoth = worker.push(new long[] {KEY_AT_0, KEY_AT_1}, values, new int[] {8, 8});
            CompletableFuture<Void> lost = worker.request(atBoth);
            release.countDown();
            ExecutionException failed = assertThrows(ExecutionException.class, () -> lost.get(120, TimeUnit.SECONDS));
            assertTrue(failed.getCause().getMessage().contains("server 0"), failed.getCause().getMessage());
            waitFor(worker, onlyAt1, "the push that only went to server 1");
            server1.close();
        }
    }

    @Test
    void requestsAreForgottenOnceTheirOutcomeIsKnownOrReported() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            KvServer server = KvServer.listen(e.server, e.address(), MergeFunction.float32Sum(), KvOptions.DEFAULTS);
            KvWorker worker = KvWorker.connect(e.client, List.of(server.localAddress()), e.clientAddress);
            RegisteredBuffer values = e.client.allocate(64);
            for (int i = 0; i < 2000; i++) { // code that only uses futures
                worker.request(worker.push(new long[] {i % 16}, values, new int[] {8})).get(60, TimeUnit.SECONDS);
            }
            assertEquals(0, worker.keptRequests(), "requests whose futures were taken and completed");
            long succeeded = worker.push(new long[] {1}, values, new int[] {8});
            waitFor(worker, worker.push(new long[] {2}, values, new int[] {8}), "a later push"); // same queue pair: after
            assertEquals(0, worker.keptRequests(), "a success nobody waited for is not kept");
            worker.waitFor(succeeded); // returns at once
            // A failure is kept until waitFor reports it (ps-lite's Wait), or its future was taken.
            long refused = worker.push(new long[] {1}, values, new int[] {16}); // key 1 holds 8 bytes
            assertThrows(ExecutionException.class, () -> worker.request(worker.push(new long[] {2}, values, new int[] {16}))
                    .get(60, TimeUnit.SECONDS));
            assertEquals(1, worker.keptRequests(), "the refused push nobody reported yet");
            KvException reported = assertThrows(KvException.class, () -> worker.waitFor(refused));
            assertTrue(reported.getMessage().contains("length"), reported.getMessage());
            assertEquals(0, worker.keptRequests());
            server.close();
        }
    }

    @Test
    void aWorkerThatLeavesInOrderIsNotAWarning() throws Exception {
        java.util.logging.Logger log = java.util.logging.Logger.getLogger("org.jrdma.kv");
        BlockingQueue<java.util.logging.LogRecord> records = new LinkedBlockingQueue<>();
        java.util.logging.Handler collect = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord record) {
                records.add(record);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        java.util.logging.Level before = log.getLevel();
        log.setLevel(java.util.logging.Level.ALL);
        log.addHandler(collect);
        try (Endpoints e = new Endpoints(fabric())) {
            KvServer server = KvServer.listen(e.server, e.address(), MergeFunction.float32Sum(), KvOptions.DEFAULTS);
            KvWorker worker = KvWorker.connect(e.client, List.of(server.localAddress()), e.clientAddress);
            RegisteredBuffer values = e.client.allocate(8);
            waitFor(worker, worker.push(new long[] {1}, values, new int[] {8}), "a push");
            worker.close();
            java.util.logging.LogRecord closed;
            do {
                closed = records.poll(60, TimeUnit.SECONDS);
                assertTrue(closed != null, "the server never noticed the worker leaving");
            } while (!closed.getMessage().contains("closed"));
            assertTrue(closed.getLevel().intValue() < java.util.logging.Level.WARNING.intValue(),
                    closed.getLevel() + ": " + closed.getMessage());
            server.close();
        } finally {
            log.removeHandler(collect);
            log.setLevel(before);
        }
    }
}
