package org.jrdma.impl;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** JNI surface of listeners and channels (native/src/jni/channel_natives.cc): primitives, strings and direct buffers. */
final class NativeChannel {
    private NativeChannel() {
    }

    /** Binds and listens; {@code settings} is a {@link ChannelSettings} record, {@code preSharedKey} null or the key. */
    static native long listen0(long context, String ip, int ipPort, int backlog, boolean admission, ByteBuffer settings,
                               byte[] preSharedKey);

    static native int listenerPort0(long context, long listener);

    static native void closeListener0(long context, long listener);

    /**
     * An active channel (memory allocated and registered, key assigned) that does nothing until
     * {@link #connect0}: register it under its key first.
     */
    static native long createChannel0(long context, ByteBuffer settings, byte[] preSharedKey);

    /** The queue pair's attributes as the device reports them (ibv_query_qp), as text. */
    static native String queuePair0(long context, long channel);

    /** The key every record about the channel carries. */
    static native int key0(long context, long channel);

    /** This end's (local) or the peer's address as "ip port", or null before the channel has one. */
    static native String address0(long context, long channel, boolean local);

    /** The receive ring (depth x eager bytes) as a direct buffer; messages are views of its slots. */
    static native ByteBuffer ring0(long context, long channel);

    /** Queues the connection attempt; its outcome arrives as the channel's records. */
    static native void connect0(long context, long channel, String ip, int port, String localIp, int timeoutMillis,
                                byte[] connectData);

    /** "ip port" of a connection request waiting for an admission decision (loop thread, while handling its record). */
    static native String admissionPeer0(long context, long request);

    /** The connect data of that request. */
    static native byte[] admissionData0(long context, long request);

    /** Accepts (the channel follows as kIncoming) or refuses it with the policy's code and UTF-8 text. */
    static native void decide0(long context, long request, boolean accept, int code, byte[] text);

    /** The text of the admission refusal that closed this client channel (bytes from the peer). */
    static native byte[] refusalText0(long context, long channel);

    /** Why the transport ended this channel, in its own words (UTF-8; empty if it has none: a queue pair's failure is its status). */
    static native byte[] failureText0(long context, long channel);

    /** {@link #failureText0} as text. */
    static String failureText(long context, long channel) {
        return new String(failureText0(context, channel), StandardCharsets.UTF_8);
    }

    /** Hands {@code count} 64-byte {@link Submissions} records at {@code submissions} to the channel's engine. */
    static native void submit0(long context, long channel, long submissions, int count);

    /** Graceful close: queued operations fail, posted ones complete, then kChannelClosed. */
    static native void close0(long context, long channel);

    /** Closes now: kChannelClosed, everything not reported yet fails. */
    static native void abort0(long context, long channel);

    /** The engine's state in words (diagnostics). */
    static native String describe0(long context, long channel);

    /** The channel's counters in {@link org.jrdma.ChannelCounters#NAMES}' order. */
    static native long[] counters0(long context, long channel);

    /** Queues the channel's destruction (QP, cm id, registration, memory) on the loop. */
    static native void destroy0(long context, long channel);
}
