package org.jrdma.impl;

import org.jrdma.RegisteredBuffer;
import org.jrdma.RemoteBuffer;

/** Checks of a channel operation's arguments before anything is submitted: a bad range is an exception here, not a QP error. */
final class OperationArguments {
    private OperationArguments() {
    }

    /** The jrdma buffer of this context behind {@code buffer}, with [offset, offset + length) inside it. */
    static BufferBase local(JniContext context, RegisteredBuffer buffer, int offset, int length) {
        if (!(buffer instanceof BufferBase)) {
            throw new IllegalArgumentException("not a buffer registered by jrdma: " + buffer);
        }
        BufferBase local = (BufferBase) buffer;
        if (local.registration.context() != context) {
            throw new IllegalArgumentException("the buffer is registered with another context (" + local + ")");
        }
        if (offset < 0 || length < 0 || offset > local.length() || length > local.length() - offset) {
            throw new IllegalArgumentException("range [" + offset + ", " + offset + "+" + length + ") outside the buffer of "
                    + local.length() + " bytes");
        }
        return local;
    }

    /** The remote address of an atomic: inside the token and 8-byte aligned. */
    static long atomicTarget(RemoteBuffer remoteBuffer, long remoteOffset) {
        remoteBuffer.checkRange(remoteOffset, 8);
        long address = remoteBuffer.address() + remoteOffset;
        if ((address & 7) != 0) {
            throw new IllegalArgumentException("atomic operations need an 8-byte aligned remote address, got 0x"
                    + Long.toHexString(address));
        }
        return address;
    }
}
