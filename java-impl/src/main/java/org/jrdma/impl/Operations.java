package org.jrdma.impl;

import org.jrdma.Access;
import org.jrdma.RegisteredBuffer;
import org.jrdma.RemoteBuffer;

/**
 * Builds a channel's operations from the API's arguments, checking them first: a bad range or an
 * unaligned atomic is an exception here, never a queue pair in the error state.
 */
final class Operations {
    private Operations() {
    }

    static ChannelOp send(JniContext context, RegisteredBuffer buffer, int offset, int length, int maxMessageSize) {
        BufferBase local = local(context, buffer, offset, length);
        if (length > maxMessageSize) {
            throw new IllegalArgumentException("message of " + length + " bytes exceeds the peer's maxMessageSize of "
                    + maxMessageSize + " bytes (RdmaConfig.maxMessageSize on the receiving side)");
        }
        return new ChannelOp(ChannelOp.Kind.SEND, local, offset, length, 0, 0, 0, 0, 0);
    }

    /** A receive into [offset, offset + length) of a buffer: the next message lands there. */
    static ChannelOp receive(JniContext context, RegisteredBuffer buffer, int offset, int length) {
        BufferBase local = local(context, buffer, offset, length);
        return new ChannelOp(ChannelOp.Kind.RECEIVE, local, offset, length, 0, 0, 0, 0, 0);
    }

    static ChannelOp write(JniContext context, RegisteredBuffer buffer, int offset, RemoteBuffer remote, long remoteOffset,
                           int length, boolean withImmediate, int immediate) {
        BufferBase source = local(context, buffer, offset, length);
        remote.checkRange(remoteOffset, length);
        return new ChannelOp(withImmediate ? ChannelOp.Kind.WRITE_IMM : ChannelOp.Kind.WRITE, source, offset, length,
                remote.address() + remoteOffset, remote.rkey(), immediate, 0, 0);
    }

    static ChannelOp read(JniContext context, RemoteBuffer remote, long remoteOffset, RegisteredBuffer buffer, int offset,
                          int length) {
        BufferBase target = local(context, buffer, offset, length);
        if (length == 0) {
            throw new IllegalArgumentException("an RDMA READ needs at least one byte");
        }
        remote.checkRange(remoteOffset, length);
        return new ChannelOp(ChannelOp.Kind.READ, target, offset, length, remote.address() + remoteOffset, remote.rkey(), 0, 0,
                0);
    }

    /** Compare-and-swap (operands: expected, new value) or fetch-and-add (delta, 0) on 8 aligned bytes. */
    static ChannelOp atomic(ChannelOp.Kind kind, RemoteBuffer remote, long remoteOffset, long first, long second) {
        remote.checkRange(remoteOffset, 8);
        long address = remote.address() + remoteOffset;
        if ((address & 7) != 0) {
            throw new IllegalArgumentException("atomic operations need an 8-byte aligned remote address, got 0x"
                    + Long.toHexString(address));
        }
        return new ChannelOp(kind, null, 0, 8, address, remote.rkey(), 0, first, second);
    }

    /** A request for the peer to allocate {@code size} bytes with these rights (remote-memory agent). */
    static ChannelOp allocateRemote(int size, Access... access) {
        if (size <= 0) {
            throw new IllegalArgumentException("size must be positive: " + size);
        }
        return new ChannelOp(ChannelOp.Kind.ALLOCATE_REMOTE, null, 0, 0, 0, 0, remoteRights(access), size, 0);
    }

    static ChannelOp releaseRemote(RemoteBuffer allocated) {
        return new ChannelOp(ChannelOp.Kind.RELEASE_REMOTE, null, 0, 0, allocated.address(), allocated.rkey(), 0,
                allocated.length(), 0);
    }

    /** Hands the peer {@code token}, a registration of exactly the buffer's bytes (held while it is sent). */
    static ChannelOp sendToken(BufferBase buffer, MemoryRegistration token, Access... access) {
        return new ChannelOp(ChannelOp.Kind.SEND_TOKEN, buffer, 0, 0, token.address, token.rkey, remoteRights(access),
                token.length, 0);
    }

    /** The buffer behind a token to be sent: a jrdma buffer of this context. */
    static BufferBase tokenSource(JniContext context, RegisteredBuffer buffer, Access... access) {
        remoteRights(access);
        return local(context, buffer, 0, 0);
    }

    /** The wire's rights bits; at least one right, or the memory would be no use to the peer. */
    private static int remoteRights(Access... access) {
        int bits = AccessFlags.wire(access);
        if (bits == 0) {
            throw new IllegalArgumentException("name the rights the peer gets: at least one of REMOTE_READ, REMOTE_WRITE,"
                    + " REMOTE_ATOMIC");
        }
        return bits;
    }

    /** The jrdma buffer of this context behind {@code buffer}, with [offset, offset + length) inside it. */
    private static BufferBase local(JniContext context, RegisteredBuffer buffer, int offset, int length) {
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
}
