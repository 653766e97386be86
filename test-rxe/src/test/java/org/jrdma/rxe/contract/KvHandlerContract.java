package org.jrdma.rxe.contract;

import static org.jrdma.rxe.contract.KvContract.failureOf;
import static org.jrdma.rxe.contract.KvContract.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jrdma.Access;
import org.jrdma.ChannelCounters;
import org.jrdma.RegisteredBuffer;
import org.jrdma.kv.KvException;
import org.jrdma.kv.KvOptions;
import org.jrdma.kv.KvRequestHandler;
import org.jrdma.kv.KvServer;
import org.jrdma.kv.KvServerRequest;
import org.jrdma.kv.KvServerRequest.Kind;
import org.jrdma.kv.KvWorker;
import org.jrdma.kv.MergeFunction;
import org.junit.jupiter.api.Test;

/**
 * A server's request handler over every transport (KvHandlerTest: verbs in the VM; TcpKvHandlerTest,
 * ShmKvHandlerTest: the host): it sees each accepted push, pull and PushPull, answers it now or later
 * from any thread, and a held pull or PushPull returns the values as they are when answered — ps-lite's
 * synchronous aggregation.
 */
public abstract class KvHandlerContract {
    protected abstract Fabric fabric();

    /**
     * Holds requests of the kinds given until {@code size} of them are held, then answers them all — on a
     * thread of its own, as a handler that waits for a round elsewhere would; other kinds at once.
     */
    private static final class Rounds implements KvRequestHandler, AutoCloseable {
        private final int size;
        private final List<Kind> held;
        private final List<KvServerRequest> round = new ArrayList<>();
        private final List<KvServerRequest> seen = new ArrayList<>();
        private final ExecutorService answerer = Executors.newSingleThreadExecutor();

        Rounds(int size, Kind... held) {
            this.size = size;
            this.held = List.of(held);
        }

        @Override
        public synchronized void onRequest(KvServerRequest request) {
            seen.add(request);
            if (!held.contains(request.kind())) {
                request.answer();
                return;
            }
            round.add(request);
            if (round.size() == size) {
                List<KvServerRequest> answering = new ArrayList<>(round);
                round.clear();
                answerer.execute(() -> answering.forEach(KvServerRequest::answer));
            }
        }

        synchronized List<KvServerRequest> seen() {
            return new ArrayList<>(seen);
        }

        @Override
        public void close() {
            answerer.shutdownNow();
        }
    }

    private static RegisteredBuffer floats(RegisteredBuffer buffer, float... values) {
        FloatBuffer f = buffer.buffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
        for (int i = 0; i < values.length; i++) {
            f.put(i, values[i]);
        }
        return buffer;
    }

    private static float floatAt(RegisteredBuffer buffer, int index) {
        return buffer.buffer().order(ByteOrder.LITTLE_ENDIAN).getFloat(4 * index);
    }

    @Test
    void pushesAnsweredOnlyWhenEveryWorkerPushedGiveSynchronousAggregation() throws Exception {
        try (Endpoints e = new Endpoints(fabric()); Rounds rounds = new Rounds(2, Kind.PUSH)) {
            KvServer server = KvServer.listen(e.server, e.address(), MergeFunction.float32Sum(), KvOptions.DEFAULTS, rounds);
            KvWorker a = KvWorker.connect(e.client, List.of(server.localAddress()), e.clientAddress);
            KvWorker b = KvWorker.connect(e.client, List.of(server.localAddress()), e.clientAddress);
            RegisteredBuffer values = floats(e.client.allocate(8), 1f, 2f);
            CompletableFuture<Void> first = a.request(a.push(new long[] {9}, values, new int[] {8}));
            assertThrows(TimeoutException.class, () -> first.get(500, TimeUnit.MILLISECONDS),
                    "answered before the other worker pushed");
            waitFor(b, b.push(new long[] {9}, values, new int[] {8}), "the second worker's push");
            first.get(60, TimeUnit.SECONDS);
            RegisteredBuffer into = e.client.allocate(8, Access.REMOTE_WRITE);
            waitFor(a, a.pull(new long[] {9}, into, new int[] {8}), "the pull after the round");
            assertEquals(2f, floatAt(into, 0), "both pushes of the round");
            assertEquals(4f, floatAt(into, 1));
            List<KvServerRequest> seen = rounds.seen();
            assertEquals(List.of(Kind.PUSH, Kind.PUSH, Kind.PULL), seen.stream().map(KvServerRequest::kind).toList());
            assertTrue(seen.stream().allMatch(KvServerRequest::answered));
            assertEquals(9L, seen.get(2).keys()[0]);
            server.close();
        }
    }

    @Test
    void aHeldPullReturnsTheValuesAsTheyAreWhenAnswered() throws Exception {
        // Pulls are held until both workers pulled; between a's pull and b's, b pushes: a's pull, answered
        // after that, sees b's push too.
        try (Endpoints e = new Endpoints(fabric()); Rounds rounds = new Rounds(2, Kind.PULL)) {
            KvServer server = KvServer.listen(e.server, e.address(), MergeFunction.float32Sum(), KvOptions.DEFAULTS, rounds);
            KvWorker a = KvWorker.connect(e.client, List.of(server.localAddress()), e.clientAddress);
            KvWorker b = KvWorker.connect(e.client, List.of(server.localAddress()), e.clientAddress);
            RegisteredBuffer values = floats(e.client.allocate(8), 1f, 2f);
            waitFor(a, a.push(new long[] {5}, values, new int[] {8}), "a's push");
            RegisteredBuffer intoA = floats(e.client.allocate(8, Access.REMOTE_WRITE), -1f, -1f);
            int[] lengthA = {8};
            CompletableFuture<Void> pullA = a.request(a.pull(new long[] {5}, intoA, lengthA));
            assertThrows(TimeoutException.class, () -> pullA.get(500, TimeUnit.MILLISECONDS), "answered before the round");
            assertEquals(-1f, floatAt(intoA, 0), "nothing written before the answer");
            waitFor(b, b.push(new long[] {5}, values, new int[] {8}), "b's push");
            RegisteredBuffer intoB = e.client.allocate(8, Access.REMOTE_WRITE);
            waitFor(b, b.pull(new long[] {5}, intoB, new int[] {8}), "b's pull, which completes the round");
            pullA.get(60, TimeUnit.SECONDS);
            assertEquals(8, lengthA[0]);
            assertEquals(2f, floatAt(intoA, 0), "a's pull, answered after b's push, has it");
            assertEquals(4f, floatAt(intoA, 1));
            assertEquals(2f, floatAt(intoB, 0));
            // A refused pull never reaches the handler: answered at once.
            assertTrue(failureOf(a, a.pull(new long[] {77}, intoA, new int[] {8})).getMessage().contains("never pushed"));
            assertEquals(4, rounds.seen().size(), "two pushes, two pulls; not the refused one");
            server.close();
        }
    }

    @Test
    void heldPushPullsEachReturnTheWholeRoundsSumInMessagesAndThroughSlots() throws Exception {
        int length = 64 << 10; // a slot per key and worker after the first push (KvOptions.DEFAULTS.slotMinBytes)
        try (Endpoints e = new Endpoints(fabric()); Rounds rounds = new Rounds(2, Kind.PUSH_PULL)) {
            KvServer server = KvServer.listen(e.server, e.address(), MergeFunction.float32Sum(), KvOptions.DEFAULTS, rounds);
            List<KvWorker> workers = List.of(KvWorker.connect(e.client, List.of(server.localAddress()), e.clientAddress),
                    KvWorker.connect(e.client, List.of(server.localAddress()), e.clientAddress));
            RegisteredBuffer ones = e.client.allocate(length);
            FloatBuffer in = ones.buffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
            for (int j = 0; j < length / 4; j++) {
                in.put(j, 1);
            }
            long[] key = {3};
            float expected = 0;
            for (int round = 0; round < 3; round++) { // round 0 in PUSHPULL messages, then through the slots
                RegisteredBuffer[] into = {e.client.allocate(length, Access.REMOTE_WRITE),
                        e.client.allocate(length, Access.REMOTE_WRITE)};
                ChannelCounters before = e.client.counters();
                long first = workers.get(0).pushPull(key, ones, new int[] {length}, into[0]);
                CompletableFuture<Void> held = workers.get(0).request(first);
                assertThrows(TimeoutException.class, () -> held.get(300, TimeUnit.MILLISECONDS),
                        "round " + round + " answered before the other worker's PushPull");
                waitFor(workers.get(1), workers.get(1).pushPull(key, ones, new int[] {length}, into[1]), "the second PushPull");
                held.get(60, TimeUnit.SECONDS);
                assertEquals(round == 0 ? 0 : 2, e.client.counters().writes() - before.writes(),
                        "round " + round + ": writes into the slots");
                expected += 2;
                for (RegisteredBuffer merged : into) {
                    for (int j = 0; j < length / 4; j += 997) {
                        assertEquals(expected, floatAt(merged, j), "round " + round + ", float " + j);
                    }
                }
                if (round == 0) { // a first push gives each worker its slot
                    for (KvWorker w : workers) {
                        waitFor(w, w.push(key, ones, new int[] {length}), "the push that brings the slot");
                        assertEquals(1, w.slots());
                    }
                    expected += 2;
                }
            }
            server.close();
        }
    }

    @Test
    void aHeldPushPullWhoseValueOutgrewItsDestinationSaysItWasApplied() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            CompletableFuture<KvServerRequest> held = new CompletableFuture<>();
            KvServer server = KvServer.listen(e.server, e.address(), MergeFunction.overwrite(), KvOptions.DEFAULTS,
                    request -> {
                        if (request.kind() == Kind.PUSH_PULL) {
                            held.complete(request);
                        } else {
                            request.answer();
                        }
                    });
            KvWorker a = KvWorker.connect(e.client, List.of(server.localAddress()), e.clientAddress);
            KvWorker b = KvWorker.connect(e.client, List.of(server.localAddress()), e.clientAddress);
            RegisteredBuffer values = floats(e.client.allocate(16), 1f, 2f, 3f, 4f);
            RegisteredBuffer into = e.client.allocate(8, Access.REMOTE_WRITE);
            CompletableFuture<Void> pushPull = a.request(a.pushPull(new long[] {1}, values, new int[] {8}, into));
            KvServerRequest request = held.get(60, TimeUnit.SECONDS); // a's 8 bytes are applied
            waitFor(b, b.push(new long[] {1}, values, new int[] {16}), "b's overwrite with 16 bytes");
            assertFalse(request.answered());
            request.answer();
            request.answer(); // once only
            ExecutionException failed = assertThrows(ExecutionException.class, () -> pushPull.get(60, TimeUnit.SECONDS));
            String why = failed.getCause().getMessage();
            assertTrue(failed.getCause() instanceof KvException && why.contains("was applied")
                    && why.contains("larger than its destination"), why);
            assertTrue(request.answered());
            server.close();
        }
    }

    @Test
    void aHandlerThatThrowsHasTheRequestAnsweredAtOnce() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            KvServer server = KvServer.listen(e.server, e.address(), MergeFunction.float32Sum(), KvOptions.DEFAULTS,
                    request -> {
                        throw new IllegalStateException("a broken handler");
                    });
            KvWorker worker = KvWorker.connect(e.client, List.of(server.localAddress()), e.clientAddress);
            waitFor(worker, worker.push(new long[] {1}, e.client.allocate(8), new int[] {8}), "the push");
            waitFor(worker, worker.pull(new long[] {1}, e.client.allocate(8, Access.REMOTE_WRITE), new int[] {8}), "the pull");
            server.close();
        }
    }
}
