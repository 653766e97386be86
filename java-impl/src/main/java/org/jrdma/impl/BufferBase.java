package org.jrdma.impl;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jrdma.Access;
import org.jrdma.RdmaClosedException;
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
    // Registrations of these bytes whose keys peers hold (RdmaChannel.sendToken, memory the agent
    // allocated for a peer): revoked when the buffer is freed, before its memory can be reused.
    private final List<MemoryRegistration> grants = new ArrayList<>(0); // guarded by itself

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

    /** Ties a registration of this buffer's bytes to its life; a buffer already freed revokes it and throws. */
    void addGrant(MemoryRegistration grant) {
        synchronized (grants) {
            if (!isFreed()) { // free() drains the list after the flag is set: nothing added now is missed
                grants.add(grant);
                return;
            }
        }
        grant.markClosed();
        throw new RdmaClosedException(describe() + " is closed");
    }

    @Override
    protected final void free() {
        List<MemoryRegistration> revoked;
        synchronized (grants) {
            revoked = new ArrayList<>(grants);
            grants.clear();
        }
        try {
            revoked.forEach(MemoryRegistration::markClosed);
        } finally {
            freeMemory();
        }
    }

    /** Gives the memory back (deregisters, or returns the block); the grants are revoked already. */
    protected abstract void freeMemory();

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
