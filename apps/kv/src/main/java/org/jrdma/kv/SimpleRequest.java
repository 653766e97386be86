package org.jrdma.kv;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A request a {@link SimpleApp} received (ps-lite's SimpleData with its Response): who sent it, its head
 * and body, and the answer the sender waits for — given once, now or later, from any thread.
 */
public final class SimpleRequest {
    private final SimplePeer peer;
    private final int head;
    private final byte[] body;
    private final long id;
    private final AtomicBoolean answered = new AtomicBoolean();

    SimpleRequest(SimplePeer peer, int head, byte[] body, long id) {
        this.peer = peer;
        this.head = head;
        this.body = body;
        this.id = id;
    }

    /**
     * Who asked; requests can go back to it ({@link SimplePeer#request}).
     *
     * @return the sender's end of the channel
     */
    public SimplePeer sender() {
        return peer;
    }

    /**
     * The sender's head: what it asks for, as the two applications agree.
     *
     * @return the head
     */
    public int head() {
        return head;
    }

    /**
     * The sender's body (a copy: the request may be kept).
     *
     * @return the body
     */
    public byte[] body() {
        return body;
    }

    /**
     * Whether the request was answered.
     *
     * @return true once {@link #respond} or {@link #fail} was called
     */
    public boolean answered() {
        return answered.get();
    }

    /**
     * Answers: the sender's future completes with {@code response}. Nothing is sent once the channel closed
     * (the sender's request failed with the close).
     *
     * @param response the answer's body, at most the app's {@code maxBodyBytes}
     * @throws IllegalStateException when the request was answered already
     * @throws IllegalArgumentException when the body is larger than the app allows
     */
    public void respond(byte[] response) {
        answer(SimpleWire.OK, response);
    }

    /**
     * Answers with a failure: the sender's future fails with a {@link KvException} carrying {@code why}.
     *
     * @param why what went wrong, for the sender
     * @throws IllegalStateException when the request was answered already
     */
    public void fail(String why) {
        byte[] text = String.valueOf(why).getBytes(StandardCharsets.UTF_8);
        int max = peer.app.maxBodyBytes();
        answer(SimpleWire.FAILED, text.length <= max ? text : Arrays.copyOf(text, max));
    }

    private void answer(int status, byte[] response) {
        peer.app.checkBody(response);
        if (!answered.compareAndSet(false, true)) {
            throw new IllegalStateException("the request " + head + " from " + peer.address() + " was answered already");
        }
        peer.send(SimpleWire.RESPONSE, status, head, id, response);
    }
}
