package org.jrdma;

import java.nio.ByteBuffer;
import java.util.Set;

/**
 * Memory registered with a context's protection domain. Valid until closed; closing is idempotent,
 * and while operations still use the buffer its deregistration is deferred until they finish.
 * After close every method but {@link #close()} and {@link #isClosed()} throws {@link RdmaClosedException}.
 */
public interface RegisteredBuffer extends AutoCloseable {
    /** A view of the registered bytes: position 0, limit and capacity {@link #length()}. A new view each call. */
    ByteBuffer buffer();

    /** Virtual address of the first byte. */
    long address();

    int length();

    /** The local key, for this host's work requests. */
    int lkey();

    /** The remote key peers use; only for a buffer registered with remote access, else IllegalStateException. */
    int rkey();

    /** The token a peer needs for one-sided operations on this buffer; only with remote access. */
    RemoteBuffer remote();

    /** The remote access granted (empty: local only). */
    Set<Access> access();

    boolean isClosed();

    @Override
    void close();
}
