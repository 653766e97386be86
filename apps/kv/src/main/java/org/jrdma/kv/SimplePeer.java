package org.jrdma.kv;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jrdma.ProtocolException;
import org.jrdma.RdmaChannel;
import org.jrdma.RegisteredBuffer;

/**
 * The other end of one channel of a {@link SimpleApp}: requests go to it and its answers are matched to them
 * by id. Requests travel both ways on the channel: the side that connected and the side that accepted are
 * each other's peer.
 */
public final class SimplePeer {
    /** A request waiting for its answer. */
    private record Pending(int head, CompletableFuture<byte[]> answer) {
    }

    final SimpleApp app;
    private final RdmaChannel channel;
    private final AtomicLong nextId = new AtomicLong();
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private volatile Throwable closed; // why the channel closed; null while open

    SimplePeer(SimpleApp app, RdmaChannel channel) {
        this.app = app;
        this.channel = channel;
    }

    /**
     * Where the peer is.
     *
     * @return the address of the channel's other end
     */
    public InetSocketAddress address() {
        return channel.remoteAddress();
    }

    /**
     * Whether requests can still go to the peer.
     *
     * @return false once the channel closed
     */
    public boolean isOpen() {
        return closed == null && channel.isOpen();
    }

    /**
     * Asks the peer (ps-lite's SimpleApp::Request to one node).
     *
     * @param head what is asked, as the two applications agree
     * @param body the request's body, at most the app's {@code maxBodyBytes}
     * @return the answer's body; fails with a {@link KvException} carrying the peer's text when its handler
     *     failed the request, or the cause when the channel closed before the answer
     * @throws IllegalArgumentException when the body is larger than the app allows
     */
    public CompletableFuture<byte[]> request(int head, byte[] body) {
        app.checkBody(body);
        long id = nextId.getAndIncrement();
        CompletableFuture<byte[]> answer = new CompletableFuture<>();
        pending.put(id, new Pending(head, answer));
        if (closed != null) { // closed before it was pending: onClose has failed the others already
            failPending(id, closed);
            return answer;
        }
        send(SimpleWire.REQUEST, SimpleWire.OK, head, id, body);
        return answer;
    }

    /** Sends one message from a registered buffer of its own, closed once sent; a request that cannot go fails. */
    void send(byte type, int status, int head, long id, byte[] body) {
        int length = SimpleWire.HEADER + body.length;
        RegisteredBuffer buffer;
        try {
            buffer = app.context.allocate(length);
        } catch (RuntimeException e) {
            sendFailed(type, id, e);
            return;
        }
        try {
            SimpleWire.encode(buffer.buffer(), type, status, head, id, body);
            channel.send(buffer, 0, length).whenComplete((done, failure) -> {
                buffer.close();
                if (failure != null) {
                    sendFailed(type, id, failure);
                }
            });
        } catch (RuntimeException e) {
            buffer.close();
            sendFailed(type, id, e);
        }
    }

    private void sendFailed(byte type, long id, Throwable failure) {
        if (type == SimpleWire.REQUEST) {
            failPending(id, failure);
        }
        // An answer that cannot go: the channel closed, and the sender's request failed with it.
    }

    private void failPending(long id, Throwable cause) {
        Pending p = pending.remove(id);
        if (p != null) {
            p.answer.completeExceptionally(new KvException("request " + p.head + " to " + address() + " failed: "
                    + cause.getMessage(), cause));
        }
    }

    /** A message arrived on the channel (loop thread). */
    void onMessage(SimpleWire.Message message) {
        if (message.type() == SimpleWire.REQUEST) {
            app.handle(new SimpleRequest(this, message.head(), message.body(), message.id()));
            return;
        }
        Pending p = pending.get(message.id());
        if (p == null || p.head != message.head()) { // the request stays pending: the channel's close fails it
            throw new ProtocolException("an answer to request " + message.id() + " (head " + message.head()
                    + "), which is not waiting for one");
        }
        if (!pending.remove(message.id(), p)) {
            return; // failed meanwhile (its send failed): answered once already
        }
        if (message.status() == SimpleWire.OK) {
            p.answer.complete(message.body());
        } else {
            p.answer.completeExceptionally(new KvException("request " + p.head + " to " + address() + " failed there: "
                    + new String(message.body(), StandardCharsets.UTF_8)));
        }
    }

    /** The channel closed: every request still waiting fails with the cause. */
    void onClose(Throwable cause) {
        closed = cause != null ? cause : new KvException("the channel to " + address() + " was closed");
        for (Long id : pending.keySet()) {
            failPending(id, closed);
        }
    }

    /** Closes the channel; waiting requests fail. */
    void close() {
        channel.close();
    }
}
