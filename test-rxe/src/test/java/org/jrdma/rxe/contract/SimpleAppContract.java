package org.jrdma.rxe.contract;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaServer;
import org.jrdma.RegisteredBuffer;
import org.jrdma.kv.KvException;
import org.jrdma.kv.SimpleApp;
import org.jrdma.kv.SimplePeer;
import org.jrdma.kv.SimpleRequest;
import org.jrdma.kv.SimpleRequestHandler;
import org.junit.jupiter.api.Test;

/**
 * ps-lite's SimpleApp (docs/kv.md): requests of a head and a body answered by the peer's handler — at once or
 * later, from any thread, with a body or a failure the sender sees as text — matched by id, both ways on a
 * channel; a request to several peers; bodies above the bound refused where they are sent and where they
 * arrive; a forged answer or a malformed message ends only its channel; a close fails what still waits.
 */
public abstract class SimpleAppContract {
    protected abstract Fabric fabric();

    private static final int MAX = 64 * 1024;

    /** Answers with the head as 4 bytes followed by the body reversed. */
    private static final SimpleRequestHandler REVERSE = request -> request.respond(reversed(request.head(), request.body()));

    private static byte[] reversed(int head, byte[] body) {
        ByteBuffer out = ByteBuffer.allocate(4 + body.length).order(ByteOrder.LITTLE_ENDIAN).putInt(head);
        for (int i = body.length - 1; i >= 0; i--) {
            out.put(body[i]);
        }
        return out.array();
    }

    private static byte[] body(int seed, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i);
        }
        return b;
    }

    private static <T> T get(CompletableFuture<T> future) throws Exception {
        return future.get(60, TimeUnit.SECONDS);
    }

    private static Throwable failureOf(CompletableFuture<?> future) {
        return assertThrows(ExecutionException.class, () -> future.get(60, TimeUnit.SECONDS)).getCause();
    }

    @Test
    void requestsAreAnsweredMatchedByIdAndTravelBothWays() throws Exception {
        try (Endpoints e = new Endpoints(fabric());
             SimpleApp server = SimpleApp.listen(e.server, e.address(), REVERSE, MAX);
             SimpleApp client = SimpleApp.open(e.client, request -> request.respond(("client heard " + request.head())
                     .getBytes(StandardCharsets.UTF_8)), MAX)) {
            SimplePeer peer = get(client.connect(server.localAddress(), e.clientAddress));
            // Many in flight at once, of sizes from empty to the bound (eager and rendezvous alike).
            int[] lengths = {0, 1, 100, 4000, 5000, 60_000, MAX - 4}; // the answer adds 4 bytes
            List<CompletableFuture<byte[]>> answers = new ArrayList<>();
            for (int i = 0; i < 70; i++) {
                answers.add(peer.request(i, body(i, lengths[i % lengths.length])));
            }
            for (int i = 0; i < 70; i++) {
                assertArrayEquals(reversed(i, body(i, lengths[i % lengths.length])), get(answers.get(i)), "answer " + i);
            }
            // The side that accepted asks the side that connected, on the same channel.
            assertEquals(1, server.peers().size());
            SimplePeer back = server.peers().get(0);
            assertEquals("client heard 7", new String(get(back.request(7, new byte[0])), StandardCharsets.UTF_8));
        }
    }

    @Test
    void answersMayComeLaterFromAnyThreadAndFailuresReachTheSenderAsText() throws Exception {
        BlockingQueue<SimpleRequest> held = new LinkedBlockingQueue<>();
        SimpleRequestHandler handler = request -> {
            if (request.head() == 3) {
                throw new IllegalStateException("no head 3 here");
            }
            held.add(request);
        };
        try (Endpoints e = new Endpoints(fabric());
             SimpleApp server = SimpleApp.listen(e.server, e.address(), handler, MAX);
             SimpleApp client = SimpleApp.open(e.client, SimpleRequestHandler.refuseAll(), MAX)) {
            SimplePeer peer = get(client.connect(server.localAddress(), e.clientAddress));
            CompletableFuture<byte[]> first = peer.request(1, body(1, 10));
            CompletableFuture<byte[]> second = peer.request(2, body(2, 10));
            SimpleRequest r1 = held.poll(60, TimeUnit.SECONDS);
            SimpleRequest r2 = held.poll(60, TimeUnit.SECONDS);
            assertFalse(first.isDone() || second.isDone(), "answered before the handler answered");
            // Answered out of order, from this thread; a second answer is refused.
            r2.fail("not now");
            r1.respond("later".getBytes(StandardCharsets.UTF_8));
            assertThrows(IllegalStateException.class, () -> r1.respond(new byte[0]));
            assertEquals("later", new String(get(first), StandardCharsets.UTF_8));
            Throwable refused = failureOf(second);
            assertInstanceOf(KvException.class, refused);
            assertTrue(refused.getMessage().contains("not now"), refused.getMessage());
            Throwable threw = failureOf(peer.request(3, new byte[0]));
            assertTrue(threw.getMessage().contains("no head 3 here"), threw.getMessage());
            // The server's side asks an app that answers nothing: refused, with the reason.
            Throwable none = failureOf(server.peers().get(0).request(4, new byte[0]));
            assertTrue(none.getMessage().contains("answers no requests"), none.getMessage());
            assertTrue(peer.isOpen());
        }
    }

    @Test
    void aRequestToSeveralPeersGathersEveryAnswerInOrder() throws Exception {
        try (Endpoints e = new Endpoints(fabric());
             SimpleApp a = SimpleApp.listen(e.server, e.address(), r -> r.respond("a".getBytes(StandardCharsets.UTF_8)), MAX);
             SimpleApp b = SimpleApp.listen(e.server, e.address(), r -> r.respond("b".getBytes(StandardCharsets.UTF_8)), MAX);
             SimpleApp client = SimpleApp.open(e.client, SimpleRequestHandler.refuseAll(), MAX)) {
            List<SimplePeer> both = List.of(get(client.connect(b.localAddress(), e.clientAddress)),
                    get(client.connect(a.localAddress(), e.clientAddress)));
            List<byte[]> answers = get(SimpleApp.requestAll(both, 5, new byte[8]));
            assertEquals("b", new String(answers.get(0), StandardCharsets.UTF_8));
            assertEquals("a", new String(answers.get(1), StandardCharsets.UTF_8));
        }
    }

    @Test
    void aBodyAboveTheBoundIsRefusedWhereItIsSentAndEndsTheChannelWhereItArrives() throws Exception {
        try (Endpoints e = new Endpoints(fabric());
             SimpleApp small = SimpleApp.listen(e.server, e.address(), REVERSE, 1024);
             SimpleApp client = SimpleApp.open(e.client, SimpleRequestHandler.refuseAll(), MAX)) {
            assertThrows(IllegalArgumentException.class, () -> SimpleApp.open(e.client, REVERSE, -1));
            SimplePeer peer = get(client.connect(small.localAddress(), e.clientAddress));
            assertThrows(IllegalArgumentException.class, () -> peer.request(1, new byte[MAX + 1]));
            assertArrayEquals(reversed(2, body(2, 1020)), get(peer.request(2, body(2, 1020))));
            // 4 KiB is within the client's bound, not the server's: the server ends that channel.
            Throwable ended = failureOf(peer.request(3, new byte[4096]));
            assertInstanceOf(KvException.class, ended);
            assertFalse(peer.isOpen());
            SimplePeer again = get(client.connect(small.localAddress(), e.clientAddress));
            assertArrayEquals(reversed(4, body(4, 10)), get(again.request(4, body(4, 10))), "the server serves others on");
        }
    }

    @Test
    void aForgedAnswerOrAMalformedMessageEndsOnlyItsChannel() throws Exception {
        try (Endpoints e = new Endpoints(fabric());
             SimpleApp server = SimpleApp.listen(e.server, e.address(), REVERSE, MAX);
             SimpleApp client = SimpleApp.open(e.client, SimpleRequestHandler.refuseAll(), MAX);
             RegisteredBuffer out = e.client.allocate(64)) {
            SimplePeer honest = get(client.connect(server.localAddress(), e.clientAddress));
            ByteBuffer b = out.buffer().order(ByteOrder.LITTLE_ENDIAN);
            // An answer to a request the server never made: type RESPONSE, id 99.
            b.put(0, (byte) 2).put(1, (byte) 0).putShort(2, (short) 0).putInt(4, 0).putLong(8, 99).putInt(16, 0).putInt(20, 0);
            RdmaChannel forger = e.client.connect(server.localAddress(), e.clientAddress, (ch, m) -> { }).get(30, TimeUnit.SECONDS);
            forger.send(out, 0, 24).get(30, TimeUnit.SECONDS);
            forger.closeFuture().get(60, TimeUnit.SECONDS);
            // A request whose header claims more body than it carries.
            b.put(0, (byte) 1).putLong(8, 0).putInt(16, 40);
            RdmaChannel liar = e.client.connect(server.localAddress(), e.clientAddress, (ch, m) -> { }).get(30, TimeUnit.SECONDS);
            liar.send(out, 0, 24).get(30, TimeUnit.SECONDS);
            liar.closeFuture().get(60, TimeUnit.SECONDS);
            assertArrayEquals(reversed(6, body(6, 100)), get(honest.request(6, body(6, 100))), "the honest channel works on");
        }
    }

    @Test
    void anAnswerWithAnotherHeadEndsTheChannelAndFailsTheRequest() throws Exception {
        // A raw peer answers every request with its id but head + 1.
        try (Endpoints e = new Endpoints(fabric());
             SimpleApp client = SimpleApp.open(e.client, SimpleRequestHandler.refuseAll(), MAX);
             RegisteredBuffer out = e.server.allocate(64)) {
            RdmaServer liar = e.server.listen(e.address(), (ch, m) -> {
                ByteBuffer in = m.payload().order(ByteOrder.LITTLE_ENDIAN);
                ByteBuffer b = out.buffer().order(ByteOrder.LITTLE_ENDIAN);
                b.put(0, (byte) 2).put(1, (byte) 0).putShort(2, (short) 0).putInt(4, in.getInt(4) + 1)
                        .putLong(8, in.getLong(8)).putInt(16, 0).putInt(20, 0);
                ch.send(out, 0, 24);
            });
            SimplePeer peer = get(client.connect(liar.localAddress(), e.clientAddress));
            Throwable failed = failureOf(peer.request(5, new byte[8]));
            assertInstanceOf(KvException.class, failed);
            assertFalse(peer.isOpen(), "the channel that answered with another head is closed");
            liar.close();
        }
    }

    @Test
    void closingFailsTheRequestsThatWait() throws Exception {
        BlockingQueue<SimpleRequest> held = new LinkedBlockingQueue<>();
        try (Endpoints e = new Endpoints(fabric());
             SimpleApp client = SimpleApp.open(e.client, SimpleRequestHandler.refuseAll(), MAX)) {
            SimpleApp server = SimpleApp.listen(e.server, e.address(), held::add, MAX);
            SimplePeer peer = get(client.connect(server.localAddress(), e.clientAddress));
            CompletableFuture<byte[]> waiting = peer.request(1, new byte[16]);
            SimpleRequest request = held.poll(60, TimeUnit.SECONDS);
            server.close();
            assertInstanceOf(KvException.class, failureOf(waiting));
            request.respond(new byte[0]); // after the close: nothing is sent, nothing is thrown
            assertTrue(request.answered());
            assertInstanceOf(KvException.class, failureOf(peer.request(2, new byte[0])), "a request after the close");
        }
    }
}
