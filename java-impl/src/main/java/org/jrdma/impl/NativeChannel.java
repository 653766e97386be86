package org.jrdma.impl;

/** JNI surface of listeners and channels (native/src/jni/channel_natives.cc). Primitives and strings only. */
final class NativeChannel {
    private NativeChannel() {
    }

    static native long listen0(long context, String ip, int port, int backlog, int depth, int eager, int maxInline,
                               int timeout, int retry, int rnrRetry);

    static native int listenerPort0(long listener);

    static native void closeListener0(long context, long listener);

    /** An active channel that does nothing until {@link #connect0}: register it first. */
    static native long createChannel0(long context, int depth, int eager, int maxInline, int timeout, int retry, int rnrRetry);

    /** Queues the connection attempt; its progress arrives as event records. */
    static native void connect0(long context, long channel, String ip, int port, String localIp, int timeoutMillis);

    /** Frees a channel that was created but never connected. */
    static native void discard0(long channel);

    static native void accept0(long context, long channel, long receiveAddress, int lkey);

    static native void continueConnect0(long context, long channel, long receiveAddress, int lkey);

    static native void reject0(long context, long channel, int reason);

    static native void disconnect0(long channel);

    static native void destroy0(long context, long channel);

    /**
     * Re-posts {@code repostCount} receive slots (ints at {@code repostSlots}), then posts {@code count}
     * work requests (64-byte {@link PostBuffer} records at {@code requests}) with one ibv_post_send.
     */
    static native void postBatch0(long channel, long requests, int count, long repostSlots, int repostCount);
}
