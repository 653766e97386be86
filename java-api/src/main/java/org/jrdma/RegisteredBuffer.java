package org.jrdma;

import java.nio.ByteBuffer;
import java.util.Set;

/**
 * Memory registered with a context's protection domain. Valid until closed; closing is idempotent,
 * and while operations still use the buffer its deregistration is deferred until they finish.
 * After close every method but {@link #close()} and {@link #isClosed()} throws {@link RdmaClosedException}.
 */
public interface RegisteredBuffer extends AutoCloseable {
    /**
     * A view of the registered bytes.
     *
     * @return a new view each call: position 0, limit and capacity {@link #length()}
     */
    ByteBuffer buffer();

    /**
     * Virtual address of the first byte.
     *
     * @return the address
     */
    long address();

    /**
     * The registered length.
     *
     * @return bytes registered
     */
    int length();

    /**
     * The local key, for this host's work requests.
     *
     * @return the lkey
     */
    int lkey();

    /**
     * The remote key peers use; only for a buffer registered with remote access.
     *
     * @return the rkey
     * @throws IllegalStateException for a buffer with local access only
     */
    int rkey();

    /**
     * The token a peer needs for one-sided operations on this buffer; only with remote access.
     *
     * @return address, length and rkey
     * @throws IllegalStateException for a buffer with local access only
     */
    RemoteBuffer remote();

    /**
     * The remote access granted.
     *
     * @return the rights (empty: local only)
     */
    Set<Access> access();

    /**
     * Whether the buffer is closed.
     *
     * @return true once {@link #close()} was called (or its context closed)
     */
    boolean isClosed();

    /** Deregisters (once operations using the buffer are done) and gives pool memory back; idempotent. */
    @Override
    void close();
}
