package org.jrdma.kv;

import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jrdma.Access;
import org.jrdma.ChannelHandler;
import org.jrdma.ProtocolException;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaMessage;
import org.jrdma.RegisteredBuffer;

/**
 * A ps-lite worker (docs/kv.md): pushes values to and pulls them from the servers that own their keys
 * (server i of n owns the i-th n-th of the unsigned 64-bit key space, as ps-lite partitions it). Each
 * push or pull gets a timestamp; {@link #waitFor(long)} (ps-lite's Wait) blocks until it is done everywhere (or throws
 * why not). A server that goes away fails every pending request. Thread-safe.
 */
public final class KvWorker implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("org.jrdma.kv");

    /** One push or pull, waiting for the answers of {@code remaining} servers. */
    private static final class Request {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final AtomicInteger remaining;
        final int[] lengths;          // pull: in capacity, out the values' lengths
        final int[][] positions;      // pull: per server, the request's indexes it answers for

        Request(int servers, int[] lengths, int[][] positions) {
            this.remaining = new AtomicInteger(servers);
            this.lengths = lengths;
            this.positions = positions;
        }
    }

    private final RdmaContext context;
    private final List<RdmaChannel> servers = new ArrayList<>();
    private final AtomicLong nextTimestamp = new AtomicLong(1);
    private final Map<Long, Request> requests = new ConcurrentHashMap<>();

    private KvWorker(RdmaContext context) {
        this.context = context;
    }

    /** Connects to every server (in key-range order) from {@code local} (null: the route's choice). */
    public static KvWorker connect(RdmaContext context, List<InetSocketAddress> servers, InetAddress local)
            throws InterruptedException, ExecutionException, TimeoutException {
        KvWorker worker = new KvWorker(context);
        for (InetSocketAddress server : servers) {
            int index = worker.servers.size();
            RdmaChannel channel = context.connect(server, local, worker.handler(index))
                    .get(30, TimeUnit.SECONDS);
            worker.servers.add(channel);
        }
        return worker;
    }

    /** The server (index) that owns key: ps-lite's even split of the unsigned 64-bit key space. */
    int serverOf(long key) {
        int n = servers.size();
        if (n == 1) {
            return 0;
        }
        long width = Long.divideUnsigned(-1L, n) + 1;
        return (int) Math.min(n - 1, Long.divideUnsigned(key, width));
    }

    /**
     * Pushes {@code lengths[i]} bytes per key, packed back to back from offset 0 of {@code values}
     * (copied into the request: the buffer may be reused once this returns). Returns the timestamp.
     */
    public long push(long[] keys, RegisteredBuffer values, int[] lengths) {
        int[] offsets = offsets(keys, lengths, values);
        int[][] byServer = partition(keys);
        long timestamp = nextTimestamp.getAndIncrement();
        Request request = new Request(count(byServer), null, byServer);
        requests.put(timestamp, request);
        ByteBuffer source = values.buffer();
        for (int s = 0; s < byServer.length; s++) {
            int[] mine = byServer[s];
            if (mine.length == 0) {
                continue;
            }
            long size = KvWire.HEADER + (long) mine.length * KvWire.PUSH_ENTRY;
            for (int i : mine) {
                size += lengths[i];
            }
            RegisteredBuffer out = context.allocate(Math.toIntExact(size));
            ByteBuffer b = KvWire.le(out.buffer());
            KvWire.header(b, KvWire.PUSH, 0, mine.length, timestamp);
            int valueAt = KvWire.HEADER + mine.length * KvWire.PUSH_ENTRY;
            for (int j = 0; j < mine.length; j++) {
                int i = mine[j];
                b.putLong(KvWire.HEADER + j * KvWire.PUSH_ENTRY, keys[i]).putInt(KvWire.HEADER + j * KvWire.PUSH_ENTRY + 8, lengths[i])
                        .putInt(KvWire.HEADER + j * KvWire.PUSH_ENTRY + 12, 0);
                b.put(valueAt, source, offsets[i], lengths[i]);
                valueAt += lengths[i];
            }
            send(s, out, (int) size, request);
        }
        return timestamp;
    }

    /**
     * Pulls each key's value into its slot of {@code destination} (registered with REMOTE_WRITE):
     * slots are {@code lengths[i]} bytes, back to back from offset 0; when the pull is done,
     * {@code lengths[i]} holds the value's length. The server writes straight into the slots.
     */
    public long pull(long[] keys, RegisteredBuffer destination, int[] lengths) {
        if (!destination.access().contains(Access.REMOTE_WRITE)) {
            throw new IllegalArgumentException("pull destinations are written by the servers: register or allocate them"
                    + " with Access.REMOTE_WRITE");
        }
        int[] offsets = offsets(keys, lengths, destination);
        int[][] byServer = partition(keys);
        long timestamp = nextTimestamp.getAndIncrement();
        Request request = new Request(count(byServer), lengths, byServer);
        requests.put(timestamp, request);
        for (int s = 0; s < byServer.length; s++) {
            int[] mine = byServer[s];
            if (mine.length == 0) {
                continue;
            }
            int size = KvWire.HEADER + mine.length * KvWire.PULL_ENTRY;
            RegisteredBuffer out = context.allocate(size);
            ByteBuffer b = KvWire.le(out.buffer());
            KvWire.header(b, KvWire.PULL, 0, mine.length, timestamp);
            for (int j = 0; j < mine.length; j++) {
                int i = mine[j];
                int at = KvWire.HEADER + j * KvWire.PULL_ENTRY;
                b.putLong(at, keys[i]).putLong(at + 8, destination.address() + offsets[i]).putInt(at + 16, destination.rkey())
                        .putInt(at + 20, lengths[i]);
            }
            send(s, out, size, request);
        }
        return timestamp;
    }

    /** Blocks until the push or pull is done at every server it went to; throws {@link KvException} if not. */
    public void waitFor(long timestamp) throws InterruptedException {
        Request request = requests.get(timestamp);
        if (request == null) {
            throw new IllegalArgumentException("no request with timestamp " + timestamp + " is waiting (already waited for?)");
        }
        try {
            request.done.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof KvException ? (KvException) e.getCause() : new KvException(e.getCause().getMessage(), e.getCause());
        } finally {
            requests.remove(timestamp);
        }
    }

    /** The request's future (completes exceptionally with {@link KvException}). */
    public CompletableFuture<Void> request(long timestamp) {
        Request request = requests.get(timestamp);
        if (request == null) {
            throw new IllegalArgumentException("no request with timestamp " + timestamp);
        }
        return request.done;
    }

    @Override
    public void close() {
        servers.forEach(RdmaChannel::close);
    }

    private static int[] offsets(long[] keys, int[] lengths, RegisteredBuffer buffer) {
        if (keys.length != lengths.length || keys.length == 0) {
            throw new IllegalArgumentException(keys.length + " keys and " + lengths.length + " lengths");
        }
        int[] offsets = new int[keys.length];
        long at = 0;
        for (int i = 0; i < keys.length; i++) {
            if (lengths[i] < 0) {
                throw new IllegalArgumentException("length " + lengths[i] + " of key " + keys[i]);
            }
            offsets[i] = (int) Math.min(at, Integer.MAX_VALUE);
            at += lengths[i];
        }
        if (at > buffer.length()) {
            throw new IllegalArgumentException("the values take " + at + " bytes; the buffer has " + buffer.length());
        }
        return offsets;
    }

    private int[][] partition(long[] keys) {
        int[] counts = new int[servers.size()];
        for (long key : keys) {
            counts[serverOf(key)]++;
        }
        int[][] byServer = new int[servers.size()][];
        for (int s = 0; s < byServer.length; s++) {
            byServer[s] = new int[counts[s]];
            counts[s] = 0;
        }
        for (int i = 0; i < keys.length; i++) {
            int s = serverOf(keys[i]);
            byServer[s][counts[s]++] = i;
        }
        return byServer;
    }

    private static int count(int[][] byServer) {
        int n = 0;
        for (int[] mine : byServer) {
            n += mine.length > 0 ? 1 : 0;
        }
        return n;
    }

    private void send(int server, RegisteredBuffer out, int size, Request request) {
        servers.get(server).send(out, 0, size).whenComplete((v, t) -> {
            out.close();
            if (t != null) {
                request.done.completeExceptionally(new KvException("sending to server " + server + " failed: " + t.getMessage(), t));
            }
        });
    }

    private ChannelHandler handler(int server) {
        return new ChannelHandler() {
            @Override
            public void onMessage(RdmaChannel channel, RdmaMessage message) {
                try {
                    answer(server, KvWire.le(message.payload()));
                } catch (ProtocolException violation) {
                    LOG.log(Level.WARNING, "closing the channel to server " + channel.remoteAddress() + ": " + violation.getMessage());
                    channel.close();
                }
            }

            @Override
            public void onClose(RdmaChannel channel, Throwable cause) {
                // Every pending request fails: a server that went away cannot answer its part.
                KvException e = new KvException("server " + server + " at " + channel.remoteAddress() + " is gone"
                        + (cause == null ? "" : ": " + cause.getMessage()), cause);
                requests.values().forEach(r -> r.done.completeExceptionally(e));
            }
        };
    }

    private void answer(int server, ByteBuffer in) {
        if (in.remaining() < KvWire.HEADER || (in.get(0) != KvWire.ACK && in.get(0) != KvWire.PULLED) || in.getShort(2) != 0) {
            throw new ProtocolException("a malformed push/pull answer (" + in.remaining() + " bytes)");
        }
        Request request = requests.get(in.getLong(8));
        int status = in.get(1);
        if (request == null) {
            throw new ProtocolException("an answer for timestamp " + in.getLong(8) + ", which is not waiting");
        }
        if (status != KvWire.OK) {
            request.done.completeExceptionally(new KvException("server " + server + " refused the request: " + KvWire.status(status)));
            return;
        }
        if (in.get(0) == KvWire.PULLED) {
            int[] mine = request.positions[server];
            if (request.lengths == null || in.getInt(4) != mine.length || in.remaining() != KvWire.HEADER + 4 * mine.length) {
                throw new ProtocolException("a PULLED for " + in.getInt(4) + " keys; " + mine.length + " were asked");
            }
            for (int j = 0; j < mine.length; j++) {
                int length = in.getInt(KvWire.HEADER + 4 * j);
                if (length < 0 || length > request.lengths[mine[j]]) {
                    throw new ProtocolException("a pulled length " + length + " beyond its slot of " + request.lengths[mine[j]]);
                }
                request.lengths[mine[j]] = length;
            }
        }
        if (request.remaining.decrementAndGet() == 0) {
            request.done.complete(null);
        }
    }
}
