package org.jrdma.impl;

import java.util.concurrent.CompletableFuture;

/**
 * One posted or queued operation of a channel: what to post and what it holds. It is itself the
 * future handed to the caller, so an operation costs one allocation.
 */
final class ChannelOp extends CompletableFuture<Object> {
    enum Kind {
        SEND("SEND", true), CREDIT("SEND(credit)", true), WRITE("RDMA_WRITE", false),
        WRITE_IMM("RDMA_WRITE_WITH_IMM", true), READ("RDMA_READ", false),
        COMPARE_AND_SWAP("ATOMIC_CMP_AND_SWP", false), FETCH_AND_ADD("ATOMIC_FETCH_AND_ADD", false);

        final String verb;
        /** Consumes a receive buffer at the peer, so it needs a credit. */
        final boolean needsCredit;

        Kind(String verb, boolean needsCredit) {
            this.verb = verb;
            this.needsCredit = needsCredit;
        }
    }

    final Kind kind;
    final BufferBase buffer; // held (a use) while the operation runs; null for CREDIT and atomics
    final int offset;
    final int length;
    final long remoteAddress;
    final int rkey;
    final int immediate;
    final long compareOrAdd;
    final long swap;

    ChannelOp(Kind kind, BufferBase buffer, int offset, int length, long remoteAddress, int rkey, int immediate,
              long compareOrAdd, long swap) {
        this.kind = kind;
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
        this.remoteAddress = remoteAddress;
        this.rkey = rkey;
        this.immediate = immediate;
        this.compareOrAdd = compareOrAdd;
        this.swap = swap;
    }
}
