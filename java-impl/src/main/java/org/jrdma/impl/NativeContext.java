package org.jrdma.impl;

import java.nio.ByteBuffer;

/** JNI surface of a context (native/src/jni/context_natives.cc): primitives, and the settings record. */
final class NativeContext {
    private NativeContext() {
    }

    /**
     * Opens a context over the settings' transport ({@link ContextSettings}; over verbs the device's PD,
     * completion channel and CQ); returns the handle.
     */
    static native long open0(ByteBuffer settings, String device);

    static native void close0(long context);

    static native int cqCapacity0(long context);

    static native int cqResizes0(long context);

    /** Blocks (or spins) until events; writes 32-byte records at recordsAddress; returns their count. */
    static native int waitEvents0(long context, long recordsAddress, int capacity, int timeoutMillis, int pollMode);

    static native void wake0(long context);

    static native long register0(long context, long address, long length, int access);

    static native int lkey0(long region);

    static native int rkey0(long region);

    static native void deregister0(long region);

    /** The address of a direct buffer's first byte (index 0, not position). */
    static native long address0(ByteBuffer directBuffer);

    /** Page-aligned memory for pool slabs, never unmapped, not zero-filled; give it back with {@link #freePages0}. */
    static native ByteBuffer allocatePages0(long length);

    /** Gives {@link #allocatePages0}'s memory back (its addresses stay mapped, reading zeros); no registration on it. */
    static native void freePages0(long address, long length);
}
