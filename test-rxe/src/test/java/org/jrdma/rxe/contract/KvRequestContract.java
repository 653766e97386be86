package org.jrdma.rxe.contract;

import static org.jrdma.rxe.contract.KvContract.failureOf;
import static org.jrdma.rxe.contract.KvContract.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.jrdma.Access;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RegisteredBuffer;
import org.jrdma.kv.KvException;
import org.jrdma.kv.KvOptions;
import org.jrdma.kv.KvServer;
import org.jrdma.kv.KvWorker;
import org.jrdma.kv.MergeFunction;
import org.junit.jupiter.api.Test;

/**
 * What happens to one push/pull request over every transport (KvRequestTest: verbs in the VM;
 * TcpKvRequestTest, ShmKvRequestTest: the host): a push is applied whole or not at all at a server, a
 * key twice in one push is refused, a request fails only once every server settled its part and a
 * server that goes away fails only the requests with a part there, the worker forgets requests once
 * their outcome is known or reported, and an orderly leave is not a warning.
 */
public abstract class KvRequestContract {
    protected abstract Fabric fabric();

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
        Logger log = Logger.getLogger("org.jrdma.kv");
        BlockingQueue<LogRecord> records = new LinkedBlockingQueue<>();
        Handler collect = new Handler() {
            @Override
            public void publish(LogRecord record) {
                records.add(record);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Level before = log.getLevel();
        log.setLevel(Level.ALL);
        log.addHandler(collect);
        try (Endpoints e = new Endpoints(fabric())) {
            KvServer server = KvServer.listen(e.server, e.address(), MergeFunction.float32Sum(), KvOptions.DEFAULTS);
            KvWorker worker = KvWorker.connect(e.client, List.of(server.localAddress()), e.clientAddress);
            RegisteredBuffer values = e.client.allocate(8);
            waitFor(worker, worker.push(new long[] {1}, values, new int[] {8}), "a push");
            worker.close();
            LogRecord closed;
            do {
                closed = records.poll(60, TimeUnit.SECONDS);
                assertTrue(closed != null, "the server never noticed the worker leaving");
            } while (!closed.getMessage().contains("closed"));
            assertTrue(closed.getLevel().intValue() < Level.WARNING.intValue(),
                    closed.getLevel() + ": " + closed.getMessage());
            server.close();
        } finally {
            log.removeHandler(collect);
            log.setLevel(before);
        }
    }

    @Test
    void aServerWhoseQuotaIsFullTakesNoNewKeyButServesTheKeysItHolds() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            KvServer server = KvServer.listen(e.server, e.address(), MergeFunction.float32Sum(),
                    KvOptions.DEFAULTS.withMaxStoredBytes(64));
            KvWorker worker = KvWorker.connect(e.client, List.of(server.localAddress()), e.clientAddress);
            RegisteredBuffer values = e.client.allocate(64);
            waitFor(worker, worker.push(new long[] {1, 2}, values, new int[] {32, 24}), "56 bytes of 64");
            KvException full = failureOf(worker, worker.push(new long[] {1, 3}, values, new int[] {32, 16}));
            assertTrue(full.getMessage().contains("quota"), full.getMessage());
            assertEquals(2, server.size(), "key 3 was not created, nor key 1 summed");
            waitFor(worker, worker.push(new long[] {1, 2}, values, new int[] {32, 24}), "pushes to the keys it holds");
            waitFor(worker, worker.push(new long[] {4}, values, new int[] {8}), "a new key that still fits");
            assertEquals(3, server.size());
            server.close();
        }
    }

    @Test
    void theWorkersKeySlicerSaysWhichServerOwnsAKey() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            KvServer even = KvServer.listen(e.server, e.address(), MergeFunction.float32Sum(), KvOptions.DEFAULTS);
            KvServer odd = KvServer.listen(e.server, e.address(), MergeFunction.float32Sum(), KvOptions.DEFAULTS);
            List<InetSocketAddress> both = List.of(even.localAddress(), odd.localAddress());
            KvWorker worker = KvWorker.connect(e.client, both, e.clientAddress, (key, servers) -> (int) (key & 1));
            RegisteredBuffer values = e.client.allocate(64);
            waitFor(worker, worker.push(new long[] {2, 3, 4}, values, new int[] {4, 4, 4}), "the push");
            assertEquals(2, even.size(), "keys 2 and 4 (ps-lite's ranges would put all three on server 0)");
            assertEquals(1, odd.size(), "key 3");
            KvWorker wrong = KvWorker.connect(e.client, both, e.clientAddress, (key, servers) -> servers);
            assertThrows(IllegalStateException.class, () -> wrong.push(new long[] {1}, values, new int[] {4}));
            assertEquals(0, wrong.keptRequests(), "nothing was sent");
            even.close();
            odd.close();
        }
    }

    @Test
    void anOverwriteMayChangeAKeysLengthASumMayNot() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            KvServer overwrite = KvServer.listen(e.server, e.address(), MergeFunction.overwrite(),
                    KvOptions.DEFAULTS.withMaxStoredBytes(24));
            KvServer sum = KvServer.listen(e.server, e.address(), MergeFunction.float32Sum(), KvOptions.DEFAULTS);
            KvWorker toOverwrite = KvWorker.connect(e.client, List.of(overwrite.localAddress()), e.clientAddress);
            KvWorker toSum = KvWorker.connect(e.client, List.of(sum.localAddress()), e.clientAddress);
            RegisteredBuffer values = e.client.allocate(64);
            for (int i = 0; i < 64; i++) {
                values.buffer().put(i, (byte) i);
            }
            waitFor(toOverwrite, toOverwrite.push(new long[] {1}, values, new int[] {8}), "8 bytes");
            waitFor(toOverwrite, toOverwrite.push(new long[] {1}, values, new int[] {20}), "then 20 bytes: the value's new length");
            RegisteredBuffer into = e.client.allocate(64, Access.REMOTE_WRITE);
            int[] got = {64};
            waitFor(toOverwrite, toOverwrite.pull(new long[] {1}, into, got), "the pull");
            assertEquals(20, got[0]);
            assertEquals(-1, into.buffer().limit(20).mismatch(values.buffer().limit(20)));
            KvException full = failureOf(toOverwrite, toOverwrite.push(new long[] {1}, values, new int[] {32}));
            assertTrue(full.getMessage().contains("quota"), "growing counts against the quota: " + full.getMessage());
            waitFor(toSum, toSum.push(new long[] {1}, values, new int[] {8}), "a sum's first push");
            KvException wrong = failureOf(toSum, toSum.push(new long[] {1}, values, new int[] {16}));
            assertTrue(wrong.getMessage().contains("length"), wrong.getMessage());
            overwrite.close();
            sum.close();
        }
    }
}
