package org.jrdma.impl;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One submitted operation of a channel: what to do and what it holds. It is itself the future
 * handed to the caller, so an operation costs one allocation. The native engine reports it by its
 * sequence number, in submission order.
 */
final class ChannelOp extends CompletableFuture<Object> {
    private static final System.Logger LOG = System.getLogger("org.jrdma.channel");

    enum Kind {
        SEND("SEND", 1), WRITE("RDMA_WRITE", 3), WRITE_IMM("RDMA_WRITE_WITH_IMM", 4), READ("RDMA_READ", 5),
        COMPARE_AND_SWAP("ATOMIC_CMP_AND_SWP", 6), FETCH_AND_ADD("ATOMIC_FETCH_AND_ADD", 7), RECEIVE("RECV", 9),
        ALLOCATE_REMOTE("SEND(allocate)", 13), RELEASE_REMOTE("SEND(release)", 14), SEND_TOKEN("SEND(token)", 15);

        final String verb;
        /** OpKind in native/src/protocol/submission.h. */
        final byte opKind;

        Kind(String verb, int opKind) {
            this.verb = verb;
            this.opKind = (byte) opKind;
        }

        static String verbOf(int opKind) {
            for (Kind kind : values()) {
                if (kind.opKind == opKind) {
                    return kind.verb;
                }
            }
            switch (opKind) {
                case 0:  // a receive's completion carries no OpKind
                    return "RECV";
                case NativeCodes.OP_CREDIT:
                    return "SEND(credit)";
                case NativeCodes.OP_CONTROL:
                    return "SEND(rendezvous)";
                case NativeCodes.OP_TRANSFER_READ:
                    return "RDMA_READ(rendezvous)";
                default:
                    return "op " + opKind;
            }
        }

        boolean atomic() {
            return this == COMPARE_AND_SWAP || this == FETCH_AND_ADD;
        }
    }

    final Kind kind;
    final BufferBase buffer; // held (a use) while the operation runs; null for atomics
    final int offset;
    final int length;
    final long remoteAddress;
    final int rkey;
    final int immediate;
    final long compareOrAdd;
    final long swap;
    long seq; // assigned under the channel's lock when submitted
    int deadlineMillis; // 0: none of its own (RdmaChannel.withDeadline); set before it is submitted
    ChannelEvents.SlowOperation timing; // set when submitted while a JFR recording watches for slow operations

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

    /** Gives the buffer back and completes with the result (null, or an atomic's previous value). */
    void succeed(Object result) {
        if (buffer != null) {
            buffer.release();
        }
        if (timing != null) {
            ChannelEvents.operationEnded(timing, null);
        }
        complete(result);
    }

    /** Gives the buffer back and fails with the cause. */
    void fail(Throwable cause) {
        if (buffer != null) {
            buffer.release();
        }
        if (timing != null) {
            ChannelEvents.operationEnded(timing, cause);
        }
        completeExceptionally(cause);
    }

    /** Fails each of {@code ops} with the cause; one whose cleanup throws does not keep the others from failing. */
    static void failAll(List<ChannelOp> ops, Throwable cause) {
        for (ChannelOp op : ops) {
            try {
                op.fail(cause);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "failing a " + op.kind.verb + " threw", e);
            }
        }
    }
}
