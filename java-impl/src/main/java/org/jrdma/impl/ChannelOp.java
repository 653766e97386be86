package org.jrdma.impl;

import java.util.concurrent.CompletableFuture;

/**
 * One posted or queued operation of a channel: what to post and what it holds. It is itself the
 * future handed to the caller, so an operation costs one allocation.
 */
final class ChannelOp extends CompletableFuture<Object> {
    enum Kind {
        SEND("SEND", true, 1), CREDIT("SEND(credit)", true, 2), WRITE("RDMA_WRITE", false, 3),
        WRITE_IMM("RDMA_WRITE_WITH_IMM", true, 4), READ("RDMA_READ", false, 5),
        COMPARE_AND_SWAP("ATOMIC_CMP_AND_SWP", false, 6), FETCH_AND_ADD("ATOMIC_FETCH_AND_ADD", false, 7);

        final String verb;
        /** Consumes a receive buffer at the peer, so it needs a credit. */
        final boolean needsCredit;
        /** WorkRequestKind in native/src/core/work_request.h. */
        final byte descriptorKind;

        Kind(String verb, boolean needsCredit, int descriptorKind) {
            this.verb = verb;
            this.needsCredit = needsCredit;
            this.descriptorKind = (byte) descriptorKind;
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
