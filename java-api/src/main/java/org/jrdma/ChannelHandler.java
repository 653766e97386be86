package org.jrdma;

/**
 * Receives what happens on a channel. Called on the context's event-loop thread, one event at a
 * time per channel, in order; must not block (hand long work to an executor).
 */
public interface ChannelHandler {
    /**
     * The channel is established (before any message is delivered).
     *
     * @param channel the channel
     */
    default void onOpen(RdmaChannel channel) {
    }

    /**
     * A message arrived; its payload is valid until this returns unless retained.
     *
     * @param channel the channel it arrived on
     * @param message the message
     */
    void onMessage(RdmaChannel channel, RdmaMessage message);

    /**
     * The peer wrote with immediate data into memory it had been given; the bytes are there.
     *
     * @param channel   the channel
     * @param immediate the 32 bits the peer sent
     */
    default void onImmediate(RdmaChannel channel, int immediate) {
    }

    /**
     * The peer gave this side access to memory of its own ({@link RdmaChannel#sendToken}), in order
     * with its messages. The token works until the peer closes that buffer or the channel closes.
     *
     * @param channel the channel
     * @param token   the peer's memory and the rights it granted
     */
    default void onToken(RdmaChannel channel, RemoteBuffer token) {
    }

    /**
     * Servers only: an incoming connection was refused (version or limit mismatch); the client gets the same reason.
     *
     * @param rejection why
     */
    default void onRejected(ConnectionRejectedException rejection) {
    }

    /**
     * The channel is closed.
     *
     * @param channel the channel
     * @param cause   null after a local close, else why (peer gone, QP error, protocol error)
     */
    default void onClose(RdmaChannel channel, Throwable cause) {
    }
}
