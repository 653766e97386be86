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
import java.util.concurrent.TimeUnit;
import org.jrdma.Access;
import org.jrdma.RdmaChannel;
import org.jrdma.RegisteredBuffer;
import org.jrdma.kv.KvException;
import org.jrdma.kv.KvOptions;
import org.jrdma.kv.KvServer;
import org.jrdma.kv.KvWorker;
import org.jrdma.kv.MergeFunction;
import org.junit.jupiter.api.Test;

/**
 * ps-lite's push/pull over real verbs, in one process: two servers each owning half of the key space,
 * three workers pushing float32 values of 4 B..256 KiB for several rounds and pulling them back, checked
 * against a pure-Java model of the same sums; a server that goes away fails the pending requests
 * instead of hanging them; a worker that sends garbage loses only its own channel.
 */
class KvTest {
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

    private static void waitFor(KvWorker worker, long timestamp, String what) throws InterruptedException {
        try {
            worker.waitFor(timestamp);
        } catch (KvException e) {
            throw new AssertionError(what + " failed: " + e.getMessage(), e);
        }
    }

    @Test
    void workersPushAndPullAgainstAModelOfTheSums() throws Exception {
        // Five JVM threads move and sum megabytes in a two-vCPU emulated guest: the transport's ACK
        // timeout is raised from 67 ms (RDMA_TIMEOUT 14; 7 tries, about 0.5 s) to about 1 s per try,
        // as a lossy, slow fabric would need (an ACK missing for 0.5 s failed a SEND with RETRY_EXC_ERR).
        try (Endpoints e = new Endpoints(org.jrdma.RdmaConfig.builder().timeout(18))) {
            List<KvServer> servers = List.of(
                    KvServer.listen(e.server, Endpoints.nextAddress(), MergeFunction.float32Sum(), KvOptions.DEFAULTS),
                    KvServer.listen(e.server, Endpoints.nextAddress(), MergeFunction.float32Sum(), KvOptions.DEFAULTS));
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
            assertThrows(KvException.class, () -> worker.waitFor(pull));
        }
    }

    @Test
    void aWorkerThatSendsGarbageLosesOnlyItsOwnChannel() throws Exception {
        try (Endpoints e = new Endpoints()) {
            KvServer server = KvServer.listen(e.server, Endpoints.nextAddress(), MergeFunction.float32Sum(), KvOptions.DEFAULTS);
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
            good.waitFor(good.push(new long[] {42}, value, new int[] {8}));
            RegisteredBuffer into = e.client.allocate(8, Access.REMOTE_WRITE);
            int[] got = {8};
            good.waitFor(good.pull(new long[] {42}, into, got));
            assertEquals(8, got[0]);
            assertEquals(2.5f, into.buffer().order(ByteOrder.LITTLE_ENDIAN).getFloat(4));
            server.close();
        }
    }
}
