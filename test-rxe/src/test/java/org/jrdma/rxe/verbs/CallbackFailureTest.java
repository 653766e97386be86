package org.jrdma.rxe.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jrdma.ChannelHandler;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaClosedException;
import org.jrdma.RdmaMessage;
import org.jrdma.RegisteredBuffer;
import org.jrdma.rxe.contract.Endpoints;
import org.jrdma.rxe.contract.ResourceBaseline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Nothing a handler throws stops the event loop; an accepted channel knows its peer; close reports in order. */
@ExtendWith(ResourceBaseline.class) // the fault leaves no resource behind
class CallbackFailureTest {
    /** Server handler: "error" throws an AssertionError, "runtime" an IllegalStateException, anything else is kept. */
    static final class Throwing implements ChannelHandler {
        final BlockingQueue<RdmaChannel> opened = new LinkedBlockingQueue<>();
        final BlockingQueue<String> received = new LinkedBlockingQueue<>();

        @Override
        public void onOpen(RdmaChannel channel) {
            opened.add(channel);
        }

        @Override
        public void onMessage(RdmaChannel channel, RdmaMessage message) {
            String text = StandardCharsets.UTF_8.decode(message.payload()).toString();
            if (text.equals("error")) {
                throw new AssertionError("thrown by the test's handler");
            }
            if (text.equals("runtime")) {
                throw new IllegalStateException("thrown by the test's handler");
            }
            received.add(text);
        }
    }

    private static void send(RdmaChannel channel, RegisteredBuffer buffer, String text) throws Exception {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        buffer.buffer().put(0, bytes);
        channel.send(buffer, 0, bytes.length).get(10, TimeUnit.SECONDS);
    }

    @Test
    void anErrorInAHandlerClosesOnlyThatChannelAndTheLoopGoesOn() throws Exception {
        try (Endpoints e = new Endpoints(); RegisteredBuffer buffer = e.client.allocate(4096);
             RegisteredBuffer serverBuffer = e.server.allocate(4096)) {
            InetSocketAddress address = Endpoints.nextAddress();
            Throwing handler = new Throwing();
            e.listen(address, handler);
            RdmaChannel first = e.connect(address, (ch, m) -> { });
            RdmaChannel firstAtServer = handler.opened.poll(10, TimeUnit.SECONDS);
            RdmaChannel second = e.connect(address, (ch, m) -> { });
            assertNotNull(handler.opened.poll(10, TimeUnit.SECONDS));

            // A RuntimeException is logged; the channel goes on.
            send(second, buffer, "runtime");
            send(second, buffer, "after runtime");
            assertEquals("after runtime", handler.received.poll(10, TimeUnit.SECONDS));

            // An Error closes that channel with the Error as the cause; the loop and the other channel go on.
            send(first, buffer, "error");
            Throwable cause = firstAtServer.closeFuture().get(10, TimeUnit.SECONDS);
            assertInstanceOf(AssertionError.class, cause);
            assertFalse(firstAtServer.isOpen());
            ExecutionException refused = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                    () -> firstAtServer.send(serverBuffer, 0, 8).get(10, TimeUnit.SECONDS));
            assertInstanceOf(RdmaClosedException.class, refused.getCause());
            assertNotNull(first.closeFuture().get(10, TimeUnit.SECONDS), "the client learns that the server closed");
            send(second, buffer, "still here");
            assertEquals("still here", handler.received.poll(10, TimeUnit.SECONDS));
            assertTrue(second.isOpen());
        }
    }

    @Test
    void anAcceptedChannelKnowsItsPeerAndOnCloseRunsBeforeTheCloseFutureCompletes() throws Exception {
        try (Endpoints e = new Endpoints()) {
            InetSocketAddress address = Endpoints.nextAddress();
            CompletableFuture<RdmaChannel> accepted = new CompletableFuture<>();
            AtomicBoolean onCloseRan = new AtomicBoolean();
            e.listen(address, new ChannelHandler() {
                @Override
                public void onOpen(RdmaChannel channel) {
                    accepted.complete(channel);
                }

                @Override
                public void onMessage(RdmaChannel channel, RdmaMessage message) {
                }

                @Override
                public void onClose(RdmaChannel channel, Throwable cause) {
                    onCloseRan.set(true);
                }
            });
            RdmaChannel client = e.connect(address, (ch, m) -> { });
            RdmaChannel server = accepted.get(10, TimeUnit.SECONDS);
            assertNotNull(server.remoteAddress(), "the server side of a channel knows its peer");
            assertEquals(e.clientAddress, server.remoteAddress().getAddress());
            assertTrue(server.remoteAddress().getPort() > 0);
            assertTrue(server.toString().contains(e.clientAddress.getHostAddress()), server.toString());
            CompletableFuture<Boolean> seenByWaiter = server.closeFuture().thenApply(c -> onCloseRan.get());
            client.close();
            assertTrue(seenByWaiter.get(10, TimeUnit.SECONDS), "closeFuture completed before onClose had run");
        }
    }
}
