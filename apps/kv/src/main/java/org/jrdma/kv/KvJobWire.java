package org.jrdma.kv;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.jrdma.ProtocolException;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaException;
import org.jrdma.RegisteredBuffer;

/**
 * The messages between a job's nodes and its scheduler (docs/kv.md, "Jobs"): the push/pull header
 * ({@link KvWire#header}) with types of their own, little-endian, every field checked before use.
 */
final class KvJobWire {
    static final byte REGISTER = 16;     // node -> scheduler: role, the job's counts, a server's address
    static final byte ROSTER = 17;       // scheduler -> node: its rank, the counts, the servers in rank order
    static final byte BARRIER = 18;      // node -> scheduler: count = the group, timestamp = the node's id
    static final byte BARRIER_DONE = 19; // scheduler -> node: the barrier's outcome

    static final int ADDRESS = 20;       // u16 port, u8 address length (0, 4 or 16), u8 0, 16 bytes of address
    static final int REGISTER_SIZE = KvWire.HEADER + 8 + ADDRESS;
    static final int ROSTER_FIXED = KvWire.HEADER + 8;
    static final int BARRIER_LEFT_SIZE = KvWire.HEADER + 8; // BARRIER_DONE with MEMBER_LEFT: u32 role, u32 rank
    static final int MAX_NODES = 65536;  // workers, and servers, of one job

    /** ROSTER / BARRIER_DONE status. */
    static final int OK = 0;
    static final int COUNTS_DISAGREE = 1;
    static final int ROLE_FULL = 2;
    static final int MEMBER_LEFT = 3;

    private KvJobWire() {
    }

    static int roleCode(KvRole role) {
        return role == KvRole.SERVER ? 1 : 2;
    }

    static KvRole role(int code) {
        if (code != 1 && code != 2) {
            throw new ProtocolException("a registration with role " + code + " (1 server, 2 worker)");
        }
        return code == 1 ? KvRole.SERVER : KvRole.WORKER;
    }

    static void checkCounts(int workers, int servers) {
        if (workers < 1 || servers < 1 || workers > MAX_NODES || servers > MAX_NODES) {
            throw new ProtocolException("a job of " + Integer.toUnsignedString(workers) + " workers and "
                    + Integer.toUnsignedString(servers) + " servers (1.." + MAX_NODES + " each)");
        }
    }

    static void putAddress(ByteBuffer out, int at, InetSocketAddress address) {
        for (int i = 0; i < ADDRESS; i++) {
            out.put(at + i, (byte) 0);
        }
        if (address == null) {
            return;
        }
        byte[] ip = address.getAddress().getAddress();
        out.putShort(at, (short) address.getPort()).put(at + 2, (byte) ip.length).put(at + 4, ip);
    }

    /** A node's address as a message carries it; null when its length is 0 (a worker's registration). */
    static InetSocketAddress address(ByteBuffer in, int at) {
        int port = Short.toUnsignedInt(in.getShort(at));
        int length = in.get(at + 2);
        if ((length != 0 && length != 4 && length != 16) || in.get(at + 3) != 0) {
            throw new ProtocolException("an address of " + length + " bytes (4 or 16)");
        }
        if (length == 0) {
            return null;
        }
        byte[] ip = new byte[length];
        in.get(at + 4, ip);
        for (int i = 4 + length; i < ADDRESS; i++) {
            if (in.get(at + i) != 0) {
                throw new ProtocolException("an address with bytes after its end");
            }
        }
        try {
            return new InetSocketAddress(InetAddress.getByAddress(ip), port);
        } catch (UnknownHostException impossible) { // only for lengths other than 4 and 16
            throw new ProtocolException("an address of " + length + " bytes");
        }
    }

    static ByteBuffer register(KvRole role, int workers, int servers, InetSocketAddress served) {
        ByteBuffer out = KvWire.le(ByteBuffer.allocate(REGISTER_SIZE));
        KvWire.header(out, REGISTER, 0, roleCode(role), 0);
        out.putInt(KvWire.HEADER, workers).putInt(KvWire.HEADER + 4, servers);
        putAddress(out, KvWire.HEADER + 8, served);
        return out;
    }

    static ByteBuffer roster(int rank, int workers, List<InetSocketAddress> servers) {
        ByteBuffer out = KvWire.le(ByteBuffer.allocate(ROSTER_FIXED + ADDRESS * servers.size()));
        KvWire.header(out, ROSTER, OK, rank, 0);
        out.putInt(KvWire.HEADER, workers).putInt(KvWire.HEADER + 4, servers.size());
        for (int i = 0; i < servers.size(); i++) {
            putAddress(out, ROSTER_FIXED + ADDRESS * i, servers.get(i));
        }
        return out;
    }

    /** A refused registration: the header alone. */
    static ByteBuffer refusal(int status) {
        ByteBuffer out = KvWire.le(ByteBuffer.allocate(KvWire.HEADER));
        KvWire.header(out, ROSTER, status, 0, 0);
        return out;
    }

    static ByteBuffer barrier(byte type, int status, KvGroup group, long id) {
        ByteBuffer out = KvWire.le(ByteBuffer.allocate(KvWire.HEADER));
        KvWire.header(out, type, status, group.code, id);
        return out;
    }

    /** A barrier that failed because a node of its group left: BARRIER_DONE with that node's role and rank. */
    static ByteBuffer barrierLeft(KvGroup group, long id, KvRole role, int rank) {
        ByteBuffer out = KvWire.le(ByteBuffer.allocate(BARRIER_LEFT_SIZE));
        KvWire.header(out, BARRIER_DONE, MEMBER_LEFT, group.code, id);
        out.putInt(KvWire.HEADER, roleCode(role)).putInt(KvWire.HEADER + 4, rank);
        return out;
    }

    /** The header of a message that is exactly {@code length} bytes (or at least, when {@code exact} is false). */
    static void requireHeader(ByteBuffer in, String what, int length, boolean exact) {
        KvWire.le(in);
        if (in.remaining() < KvWire.HEADER || (exact ? in.remaining() != length : in.remaining() < length)
                || in.getShort(2) != 0) {
            throw new ProtocolException("a malformed " + what + " (" + in.remaining() + " bytes)");
        }
    }

    /** The servers of a ROSTER, checked against its length. */
    static List<InetSocketAddress> servers(ByteBuffer in, int servers) {
        if (in.remaining() != ROSTER_FIXED + (long) ADDRESS * servers) {
            throw new ProtocolException("a roster of " + servers + " servers in " + in.remaining() + " bytes");
        }
        List<InetSocketAddress> list = new ArrayList<>(servers);
        for (int i = 0; i < servers; i++) {
            InetSocketAddress server = address(in, ROSTER_FIXED + ADDRESS * i);
            if (server == null) {
                throw new ProtocolException("a roster without server " + i + "'s address");
            }
            list.add(server);
        }
        return List.copyOf(list);
    }

    /**
     * Sends a control message (copied into registered memory, given back once sent); a channel or
     * context that closed meanwhile drops it — the peer learns of the end from the channel's close.
     */
    static void send(RdmaContext context, RdmaChannel channel, ByteBuffer message) {
        RegisteredBuffer out;
        try {
            out = context.allocate(message.remaining());
        } catch (RdmaException closing) {
            return;
        }
        out.buffer().put(0, message, 0, message.remaining());
        try {
            channel.send(out, 0, message.remaining()).whenComplete((v, t) -> out.close());
        } catch (RuntimeException closed) {
            out.close();
        }
    }

    static String status(int status) {
        switch (status) {
            case COUNTS_DISAGREE: return "the node and the scheduler disagree on the job's numbers of workers and servers";
            case ROLE_FULL: return "the job has all its nodes of this role already";
            case MEMBER_LEFT: return "a node of the group left the job";
            default: return "status " + status;
        }
    }
}
