package org.jrdma.impl;

import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jrdma.AgentTimeoutException;
import org.jrdma.RdmaClosedException;
import org.jrdma.RdmaException;
import org.jrdma.RemoteAllocationException;
import org.jrdma.RemoteBuffer;

/**
 * The Java half of a channel's remote-memory agent (the protocol is the engine's:
 * native/src/protocol/channel_engine_agent.cc). For this side's requests: which futures wait for
 * the peer's answer, and which grants may be released. For the peer's: allocating what it asked
 * for (the engine has checked the quota), zeroed and registered for exactly the bytes and rights
 * asked, and freeing it on release. For tokens this side hands out: a registration of exactly the
 * buffer's bytes, revoked when the channel or the buffer closes. When the channel closes, everything
 * allocated for the peer is freed and every token given to it revoked.
 */
final class RemoteMemoryAgent {
    private static final System.Logger LOG = System.getLogger("org.jrdma.agent");
    private static final int ENOMEM = 12;
    private static final int EFBIG = 27;
    private static final byte[] ZEROS = new byte[64 * 1024];

    private final JniChannel channel;

    // Guarded by this.
    private final ArrayDeque<ChannelOp> requests = new ArrayDeque<>(); // ours, waiting, in request order
    private final Set<RemoteBuffer> granted = new HashSet<>();         // what the peer allocated for us
    private final Map<Long, BufferBase> served = new HashMap<>();      // what we allocated for it, by address
    private final List<MemoryRegistration> tokens = new ArrayList<>(); // registrations the peer holds keys to
    private boolean closed;

    RemoteMemoryAgent(JniChannel channel) {
        this.channel = channel;
    }

    // ---- this side's requests ------------------------------------------------------------------

    /** An allocation request was submitted (under the channel's lock, before the engine sees it). */
    synchronized void awaitReply(ChannelOp request) {
        requests.addLast(request);
    }

    /** The peer answered request {@code seq} (or the engine gave up waiting). */
    void onReply(long seq, int status, int rkey, long addressOrDetail) {
        ChannelOp request = null;
        RemoteBuffer memory = null;
        synchronized (this) {
            for (ChannelOp op : requests) {
                if (op.seq == seq) {
                    request = op;
                    break;
                }
            }
            if (request == null) {
                return; // failed by the channel's close already
            }
            requests.remove(request);
            if (status == EventRecords.AGENT_GRANTED) {
                memory = new RemoteBuffer(addressOrDetail, request.compareOrAdd, rkey);
                granted.add(memory);
            }
        }
        if (memory != null) {
            request.succeed(memory);
            return;
        }
        request.fail(refusal(status, request.compareOrAdd, addressOrDetail));
    }

    private RdmaException refusal(int status, long size, long detail) {
        String what = "allocation of " + size + " bytes at " + channel.remoteAddress();
        switch (status) {
            case EventRecords.AGENT_TIMED_OUT:
                return new AgentTimeoutException(what + ": no answer within " + detail + " ms (agentLimits.timeoutMillis)", detail);
            case EventRecords.AGENT_OVER_COUNT:
                return new RemoteAllocationException(what + " refused: this channel holds the peer's limit of " + detail
                        + " allocations", RemoteAllocationException.Reason.OVER_COUNT, detail, 0);
            case EventRecords.AGENT_OVER_BYTES:
                return new RemoteAllocationException(what + " refused: it would exceed the peer's limit of " + detail
                        + " bytes for this channel", RemoteAllocationException.Reason.OVER_BYTES, detail, 0);
            default:
                return new RemoteAllocationException(what + " failed at the peer: errno " + detail,
                        RemoteAllocationException.Reason.FAILED, 0, (int) detail);
        }
    }

    /** Checks that the peer allocated this for us and forgets it (a second release is refused here). */
    synchronized void forgetGrant(RemoteBuffer allocated) {
        if (!granted.remove(allocated)) {
            throw new IllegalArgumentException(allocated + " was not allocated by " + channel.remoteAddress()
                    + " for this channel (or was released already)");
        }
    }

    // ---- tokens this side hands out ------------------------------------------------------------

    /** A registration of exactly the buffer's bytes with these rights, revoked with the channel or the buffer. */
    MemoryRegistration grant(BufferBase buffer, int verbsAccess) {
        MemoryRegistration token = exactly(buffer, buffer.length, verbsAccess);
        synchronized (this) {
            if (!closed) {
                tokens.removeIf(MemoryRegistration::isFreed); // revoked by their buffers' close
                tokens.add(token);
                return token;
            }
        }
        token.markClosed();
        throw new RdmaClosedException("channel to " + channel.remoteAddress() + " is closed");
    }

    /**
     * A registration of the buffer's first {@code length} bytes with exactly these rights, revoked when
     * the buffer is freed (closed and thrown if it is freed already).
     */
    private static MemoryRegistration exactly(BufferBase buffer, int length, int verbsAccess) {
        MemoryRegistration token = buffer.registration.context().registerRange(buffer.registration, buffer.offset,
                length, verbsAccess);
        buffer.addGrant(token);
        return token;
    }

    // ---- the peer's requests -------------------------------------------------------------------

    /** The peer asks for memory; the engine's quota allowed it. Loop thread. */
    void onRequest(long id, int wireAccess, long size) {
        if (size > Integer.MAX_VALUE) {
            answer(id, null, EFBIG);
            return;
        }
        BufferBase buffer = null;
        MemoryRegistration token;
        try {
            buffer = (BufferBase) channel.context.allocate((int) size); // local only: the grant below is exact
            zero(buffer.buffer(), (int) size);
            token = exactly(buffer, (int) size, AccessFlags.mask(AccessFlags.fromWire(wireAccess)));
        } catch (RdmaClosedException closing) {
            if (buffer != null) {
                buffer.close();
            }
            return; // the context is closing: the channel closes with it
        } catch (RdmaException | OutOfMemoryError e) {
            if (buffer != null) {
                buffer.close();
            }
            int errno = e instanceof RdmaException && ((RdmaException) e).errno() != 0 ? ((RdmaException) e).errno() : ENOMEM;
            LOG.log(Level.WARNING, "could not allocate " + size + " bytes for " + channel + "; refused", e);
            answer(id, null, errno);
            return;
        }
        synchronized (this) {
            if (!closed) {
                served.put(token.address, buffer);
                buffer = null;
            }
        }
        if (buffer != null) {
            buffer.close(); // the channel closed meanwhile
            return;
        }
        answer(id, token, 0);
    }

    private void answer(long id, MemoryRegistration token, int errno) {
        channel.submitInternal(s -> s.addAgentAnswer(id, token != null ? EventRecords.AGENT_GRANTED : EventRecords.AGENT_FAILED,
                token != null ? token.address : 0, token != null ? token.rkey : 0, errno));
    }

    /** The peer released memory we allocated for it (the engine matched address, key and length). */
    void onRelease(long address) {
        BufferBase buffer;
        synchronized (this) {
            buffer = served.remove(address);
        }
        if (buffer != null) {
            buffer.close(); // deregisters its grant: the key dies before the memory is reused
        }
    }

    private static void zero(ByteBuffer memory, int length) {
        for (int at = 0; at < length; at += ZEROS.length) {
            memory.put(at, ZEROS, 0, Math.min(ZEROS.length, length - at));
        }
    }

    // ---- close ---------------------------------------------------------------------------------

    /** The channel closed: requests fail, memory allocated for the peer is freed, tokens are revoked. */
    void close(RdmaException cause) {
        List<ChannelOp> failed;
        List<BufferBase> buffers;
        List<MemoryRegistration> revoked;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            failed = new ArrayList<>(requests);
            requests.clear();
            granted.clear();
            buffers = new ArrayList<>(served.values());
            served.clear();
            revoked = new ArrayList<>(tokens);
            tokens.clear();
        }
        revoked.forEach(MemoryRegistration::markClosed);
        buffers.forEach(BufferBase::close);
        ChannelOp.failAll(failed, cause);
    }

    /** Requests from {@code firstSeq} on were never posted (the channel was closing). */
    void unposted(long firstSeq, RdmaException cause) {
        List<ChannelOp> failed = new ArrayList<>();
        synchronized (this) {
            requests.removeIf(op -> op.seq >= firstSeq && failed.add(op));
        }
        ChannelOp.failAll(failed, cause);
    }
}
