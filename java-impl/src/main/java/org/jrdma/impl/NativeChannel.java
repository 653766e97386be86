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

    static native void send0(long channel, int slot, int type, int credits, long messageId, long address, int length, int lkey);

    static native void write0(long channel, int slot, long address, int length, int lkey, long remoteAddress, int rkey,
                              boolean withImmediate, int immediate);

    static native void read0(long channel, int slot, long address, int length, int lkey, long remoteAddress, int rkey);

    static native void atomic0(long channel, int slot, boolean compareAndSwap, long address, int lkey, long remoteAddress,
                               int rkey, long compareOrAdd, long swap);

    static native void repost0(long channel, long slotsAddress, int count);
}
