package org.jrdma.rxe.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jrdma.Access;
import org.jrdma.ChannelCounters;
import org.jrdma.ChannelHandler;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaMessage;
import org.jrdma.RegisteredBuffer;
import org.jrdma.RemoteBuffer;
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
 * sends garbage loses only its own channel. What happens to single requests: KvRequestContract.
 */
public abstract class KvContract {
    protected abstract Fabric fabric();

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
    public static void waitFor(KvWorker worker, long timestamp, String what) throws Exception {
        try {
            worker.request(timestamp).get(120, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError(what + " failed: " + e.getCause().getMessage(), e.getCause());
        }
    }

    /** Waits (bounded) for a request that must fail; returns why. */
    public static KvException failureOf(KvWorker worker, long timestamp) throws Exception {
        ExecutionException e = assertThrows(ExecutionException.class,
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
            CompletableFuture<RemoteBuffer> token = new CompletableFuture<>();
            RdmaChannel raw = e.client.connect(server.localAddress(), e.clientAddress, new ChannelHandler() {
                @Override
                public void onMessage(RdmaChannel channel, RdmaMessage message) {
                }

                @Override
                public void onToken(RdmaChannel channel, RemoteBuffer t) {
                    token.complete(t);
                }
            }).get(30, TimeUnit.SECONDS);
            // A proper PUSH of an 8 KiB key earns a slot (id 0) and its token...
            RegisteredBuffer out = e.client.allocate(16 + 16 + 8192);
            ByteBuffer b = out.buffer().order(ByteOrder.LITTLE_ENDIAN);
            b.put(32, new byte[8192]).put(0, (byte) 1).put(1, (byte) 0).putShort(2, (short) 0).putInt(4, 1).putLong(8, 1)
                    .putLong(16, 7).putInt(24, 8192).putInt(28, 0);
            raw.send(out, 0, 16 + 16 + 8192).get(30, TimeUnit.SECONDS);
            RemoteBuffer slot = token.get(60, TimeUnit.SECONDS);
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

    @Test
    void pushPullFoldsThePushInAndReturnsTheMergedValuesInOneRequest() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            List<KvServer> servers = List.of(
                    KvServer.listen(e.server, e.address(), MergeFunction.float32Sum(), KvOptions.DEFAULTS),
                    KvServer.listen(e.server, e.address(), MergeFunction.float32Sum(), KvOptions.DEFAULTS));
            KvWorker worker = KvWorker.connect(e.client, List.of(servers.get(0).localAddress(), servers.get(1).localAddress()),
                    e.clientAddress);
            long[] keys = keys(6); // over both servers
            int[] lengths = {4, 64, 4096, 8, 65536, 16};
            int total = Arrays.stream(lengths).sum();
            RegisteredBuffer values = e.client.allocate(total);
            FloatBuffer in = values.buffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
            for (int j = 0; j < total / 4; j++) {
                in.put(j, j % 7);
            }
            waitFor(worker, worker.push(keys, values, lengths.clone()), "the first push");
            for (int j = 0; j < total / 4; j++) {
                in.put(j, 100 + j % 3);
            }
            RegisteredBuffer merged = e.client.allocate(total, Access.REMOTE_WRITE);
            int[] got = lengths.clone();
            waitFor(worker, worker.pushPull(keys, values, got, merged), "the push-pull");
            assertEquals(Arrays.toString(lengths), Arrays.toString(got));
            FloatBuffer out = merged.buffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
            for (int j = 0; j < total / 4; j++) {
                assertEquals(j % 7 + 100 + j % 3, out.get(j), "float " + j + " of the merged values");
            }
            // And a pull agrees: the push-pull was applied once.
            RegisteredBuffer pulled = e.client.allocate(total, Access.REMOTE_WRITE);
            waitFor(worker, worker.pull(keys, pulled, lengths.clone()), "a pull after it");
            assertEquals(-1, pulled.buffer().limit(total).mismatch(merged.buffer().limit(total)),
                    "the pull reads what the push-pull returned");
            assertThrows(IllegalArgumentException.class, () -> worker.pushPull(keys, values, lengths.clone(), values),
                    "a destination without REMOTE_WRITE");
            servers.forEach(KvServer::close);
        }
    }

    @Test
    void pushPullsOfAKeyWithASlotGoThroughItInOrderAndEachIsAppliedOnce() throws Exception {
        KvOptions options = new KvOptions(1024, 1 << 20, 4096, 1 << 20);
        int length = 64 << 10;
        try (Endpoints e = new Endpoints(fabric())) {
            KvServer server = KvServer.listen(e.server, e.address(), MergeFunction.float32Sum(), options);
            KvWorker worker = KvWorker.connect(e.client, List.of(server.localAddress()), e.clientAddress);
            long[] key = {42};
            RegisteredBuffer ones = e.client.allocate(length);
            FloatBuffer in = ones.buffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
            for (int j = 0; j < length / 4; j++) {
                in.put(j, 1);
            }
            waitFor(worker, worker.push(key, ones, new int[] {length}), "the first push");
            assertEquals(1, worker.slots(), "the server gave the key a slot");

            // One alone: its value goes by an RDMA WRITE into the slot, the message that names it is small.
            ChannelCounters before = e.client.counters();
            RegisteredBuffer first = e.client.allocate(length, Access.REMOTE_WRITE);
            waitFor(worker, worker.pushPull(key, ones, new int[] {length}, first), "a push-pull through the slot");
            ChannelCounters after = e.client.counters();
            assertEquals(1, after.writes() - before.writes(), "one write into the slot");
            assertTrue(after.bytesSent() - before.bytesSent() < 1024, "no value in a message: "
                    + (after.bytesSent() - before.bytesSent()) + " bytes sent");
            assertEquals(2f, first.buffer().order(ByteOrder.LITTLE_ENDIAN).getFloat(length - 4), "the sum after it");

            // Six at once: the first takes the slot, the others go as messages behind it; each sees the
            // sum of every push-pull issued before it and its own, so the order held and none counted twice.
            RegisteredBuffer[] merged = new RegisteredBuffer[6];
            long[] requests = new long[merged.length];
            for (int r = 0; r < merged.length; r++) {
                merged[r] = e.client.allocate(length, Access.REMOTE_WRITE);
                requests[r] = worker.pushPull(key, ones, new int[] {length}, merged[r]);
            }
            for (int r = 0; r < merged.length; r++) {
                waitFor(worker, requests[r], "push-pull " + r);
                FloatBuffer out = merged[r].buffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
                for (int j = 0; j < length / 4; j += 1021) {
                    assertEquals(3f + r, out.get(j), "float " + j + " of push-pull " + r);
                }
            }
            // The slot is free again afterwards: a push and a push-pull through it still add up.
            waitFor(worker, worker.push(key, ones, new int[] {length}), "a push into the slot");
            waitFor(worker, worker.pushPull(key, ones, new int[] {length}, first), "a last push-pull");
            assertEquals(3f + merged.length + 1, first.buffer().order(ByteOrder.LITTLE_ENDIAN).getFloat(0), "the last sum");
            server.close();
        }
    }
}
