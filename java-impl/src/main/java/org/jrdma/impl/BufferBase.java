package org.jrdma.impl;

import java.nio.ByteBuffer;
import java.util.Set;
import org.jrdma.Access;
import org.jrdma.RegisteredBuffer;
import org.jrdma.RemoteBuffer;

/**
 * Common part of registered buffers: a window [offset, offset+length) of a registration (its lkey
 * serves local access), and the registration a peer reaches it through — the same one, or for a
 * pooled buffer with remote access one of exactly the window's bytes, which dies with the buffer.
 */
abstract class BufferBase extends NativeResource implements RegisteredBuffer {
    final MemoryRegistration registration;
    final MemoryRegistration remoteRegistration;
    final int offset;
    final int length;
    private final ByteBuffer view;

    BufferBase(MemoryRegistration registration, int offset, int length) {
        this(registration, registration, offset, length);
    }

    BufferBase(MemoryRegistration registration, MemoryRegistration remoteRegistration, int offset, int length) {
        this.registration = registration;
        this.remoteRegistration = remoteRegistration;
        this.offset = offset;
        this.length = length;
        ByteBuffer memory = registration.memory().duplicate();
        memory.clear().position(offset).limit(offset + length);
        this.view = memory.slice();
    }

    @Override
    public ByteBuffer buffer() {
        ensureOpen();
        return view.duplicate();
    }

    @Override
    public long address() {
        ensureOpen();
        return registration.address + offset;
    }

    @Override
    public int length() {
        return length;
    }

    @Override
    public int lkey() {
        ensureOpen();
        return registration.lkey;
    }

    @Override
    public int rkey() {
        ensureOpen();
        if (!AccessFlags.remote(remoteRegistration.access)) {
            throw new IllegalStateException("this buffer was registered for local access only: it has no rkey"
                    + " (register or allocate it with Access.REMOTE_READ/REMOTE_WRITE/REMOTE_ATOMIC)");
        }
        return remoteRegistration.rkey;
    }

    @Override
    public RemoteBuffer remote() {
        return new RemoteBuffer(address(), length, rkey());
    }

    @Override
    public Set<Access> access() {
        return AccessFlags.set(remoteRegistration.access);
    }

    @Override
    public boolean isClosed() {
        return isClosedFlag();
    }

    @Override
    public void close() {
        markClosed();
    }

    @Override
    public String toString() {
        return describe() + (isClosed() ? " (closed)" : "");
    }
}
