package org.jrdma.kv;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import org.jrdma.ChannelHandler;
import org.jrdma.ProtocolException;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaMessage;
import org.jrdma.RegisteredBuffer;
import org.jrdma.RemoteBuffer;

/**
 * A ps-lite worker (docs/kv.md): pushes values to and pulls them from the servers that own their keys
 * (server i of n owns the i-th n-th of the unsigned 64-bit key space, as ps-lite partitions it). Each
 * push or pull gets a timestamp; {@link #waitFor(long)} (ps-lite's Wait) blocks until it is done everywhere (or throws
 * why not). A server that goes away fails every pending request. Thread-safe.
 */
public final class KvWorker implements AutoCloseable {

    private final RdmaContext context;
    private final List<RdmaChannel> servers = new ArrayList<>();
    private final AtomicLong nextTimestamp = new AtomicLong(1);
    private final Map<Long, KvRequest> requests = new ConcurrentHashMap<>();
    private final List<PushSlots> pushSlots = new ArrayList<>();
    private final AtomicInteger[] messagePushes; // per server: PUSH messages not yet answered

    private final KeySlicer slicer;

    private KvWorker(RdmaContext context, int servers, KeySlicer slicer) {
        this.context = context;
        this.slicer = slicer;
        this.messagePushes = new AtomicInteger[servers];
        Arrays.setAll(messagePushes, s -> new AtomicInteger());
    }

    /**
     * Connects to every server (in key-range order) from {@code local}.
     *
     * @param context the context the worker's channels and requests use
     * @param servers the servers' addresses; server i owns the i-th part of the key space
     * @param local   the address to connect from (null: the route's choice)
     * @return the connected worker
     * @throws InterruptedException when interrupted while connecting
     * @throws ExecutionException   when a connection failed (its cause says why)
     * @throws TimeoutException     when a server did not answer within 30 s
     */
    public static KvWorker connect(RdmaContext context, List<InetSocketAddress> servers, InetAddress local)
            throws InterruptedException, ExecutionException, TimeoutException {
        return connect(context, servers, local, KeySlicer.evenRanges());
    }

    /**
     * Connects to every server from {@code local}; {@code slicer} says which one owns a key (every
     * worker of the job must use the same one).
     *
     * @param context the context the worker's channels and requests use
     * @param servers the servers' addresses, in the order the slicer numbers them
     * @param local   the address to connect from (null: the route's choice)
     * @param slicer  which server owns a key
     * @return the connected worker
     * @throws InterruptedException when interrupted while connecting
     * @throws ExecutionException   when a connection failed (its cause says why)
     * @throws TimeoutException     when a server did not answer within 30 s
     */
    public static KvWorker connect(RdmaContext context, List<InetSocketAddress> servers, InetAddress local,
                                   KeySlicer slicer) throws InterruptedException, ExecutionException, TimeoutException {
        KvWorker worker = new KvWorker(context, servers.size(), Objects.requireNonNull(slicer, "slicer"));
        for (InetSocketAddress server : servers) {
            int index = worker.servers.size();
            worker.pushSlots.add(new PushSlots());
            RdmaChannel channel = context.connect(server, local, worker.handler(index))
                    .get(30, TimeUnit.SECONDS);
            worker.servers.add(channel);
        }
        return worker;
    }

    /** The server (index) that owns key, as the slicer says. */
    int serverOf(long key) {
        int server = slicer.serverOf(key, servers.size());
        if (server < 0 || server >= servers.size()) {
            throw new IllegalStateException("the key slicer put key " + key + " on server " + server + " of "
                    + servers.size());
        }
        return server;
    }

    /**
     * Pushes {@code lengths[i]} bytes per key, packed back to back from offset 0 of {@code values}.
     * Returns the timestamp. The bytes are read until the request is done ({@link #waitFor}), so leave
     * them unchanged until then: a key that has a write slot at its server (values of at least
     * {@link KvOptions#slotMinBytes()}, once pushed) goes straight from {@code values} into it with one
     * RDMA WRITE with immediate; the others are copied into a PUSH message.
     *
     * @param keys    the keys, any order (a request goes to each server owning one)
     * @param values  the values, back to back from offset 0
     * @param lengths each value's length in bytes
     * @return the request's timestamp, for {@link #waitFor} or {@link #request}
     * @throws IllegalArgumentException when a key appears twice, or the lengths do not fit the buffer
     */
    public long push(long[] keys, RegisteredBuffer values, int[] lengths) {
        int[] offsets = KvArguments.offsets(keys, lengths, values);
        KvArguments.requireDistinct(keys);
        int[][] byServer = partition(keys);
        long timestamp = nextTimestamp.getAndIncrement();
        // Plan first (the request must know how many answers to wait for): slots where free, else the message.
        PushSlots.Slot[] direct = new PushSlots.Slot[keys.length];
        int[] copied = new int[byServer.length];
        int[] parts = new int[byServer.length];
        for (int s = 0; s < byServer.length; s++) {
            // A slot write may overtake a large PUSH still in flight (its bytes are read by rendezvous
            // first): use slots only when no PUSH message to this server is, so pushes of a key stay in order.
            boolean slotsUsable = messagePushes[s].get() == 0;
            for (int i : byServer[s]) {
                direct[i] = slotsUsable ? pushSlots.get(s).claim(keys[i], lengths[i], timestamp) : null;
                parts[s] += direct[i] != null ? 1 : 0;
                copied[s] += direct[i] != null ? 0 : 1;
            }
            parts[s] += copied[s] > 0 ? 1 : 0;
        }
        KvRequest request = new KvRequest(timestamp, requests::remove, parts, null, byServer);
        requests.put(timestamp, request);
        for (int s = 0; s < byServer.length; s++) {
            try {
                pushTo(s, keys, values, lengths, offsets, byServer[s], direct, copied[s], timestamp, request);
            } catch (RuntimeException e) { // e.g. the channel closed: the request fails, it does not hang
                request.serverGone(s, new KvException("sending to server " + s + " failed: " + e.getMessage(), e));
            }
        }
        return timestamp;
    }

    /** One server's part of a push: its keys' slot writes, and one PUSH with those that found no slot. */
    private void pushTo(int server, long[] keys, RegisteredBuffer values, int[] lengths, int[] offsets, int[] mine,
                        PushSlots.Slot[] direct, int copied, long timestamp, KvRequest request) {
        for (int i : mine) {
            PushSlots.Slot slot = direct[i];
            if (slot != null) {
                servers.get(server).writeWithImmediate(values, offsets[i], slot.token, 0, lengths[i], slot.id).whenComplete((v, t) -> {
                    if (t != null) {
                        PushSlots.release(slot);
                        request.settle(server, new KvException("writing to server " + server + " failed: "
                                + t.getMessage(), t));
                    }
                });
            }
        }
        if (copied > 0) {
            pushMessage(server, keys, values.buffer(), lengths, offsets, mine, direct, copied, timestamp, request);
        }
    }

    /** The keys of one server that found no free slot, copied into one PUSH. */
    private void pushMessage(int s, long[] keys, ByteBuffer source, int[] lengths, int[] offsets, int[] mine,
                             PushSlots.Slot[] direct, int count, long timestamp, KvRequest request) {
        long size = KvWire.HEADER + (long) count * KvWire.PUSH_ENTRY;
        for (int i : mine) {
            size += direct[i] == null ? lengths[i] : 0;
        }
        RegisteredBuffer out = context.allocate(Math.toIntExact(size));
        ByteBuffer b = KvWire.le(out.buffer());
        KvWire.header(b, KvWire.PUSH, 0, count, timestamp);
        int valueAt = KvWire.HEADER + count * KvWire.PUSH_ENTRY;
        int j = 0;
        for (int i : mine) {
            if (direct[i] != null) {
                continue;
            }
            b.putLong(KvWire.HEADER + j * KvWire.PUSH_ENTRY, keys[i]).putInt(KvWire.HEADER + j * KvWire.PUSH_ENTRY + 8, lengths[i])
                    .putInt(KvWire.HEADER + j * KvWire.PUSH_ENTRY + 12, 0);
            b.put(valueAt, source, offsets[i], lengths[i]);
            valueAt += lengths[i];
            j++;
        }
        messagePushes[s].incrementAndGet();
        request.done.whenComplete((v, t) -> messagePushes[s].decrementAndGet());
        send(s, out, (int) size, request);
    }

    /**
     * ps-lite's barrier: done once {@code workers} workers (this one included) have entered it; server 0
     * keeps it. Returns the timestamp to {@link #waitFor}. Fails when the workers disagree on its size or
     * one of them goes away while the others wait.
     *
     * @param workers how many workers the barrier waits for, this one included (1..65536)
     * @return the request's timestamp, for {@link #waitFor} or {@link #request}
     */
    public long barrier(int workers) {
        if (workers < 1 || workers > KvWire.MAX_BARRIER) {
            throw new IllegalArgumentException("a barrier of " + workers + " workers (1.." + KvWire.MAX_BARRIER + ")");
        }
        long timestamp = nextTimestamp.getAndIncrement();
        int[] parts = new int[servers.size()];
        parts[0] = 1;
        KvRequest request = new KvRequest(timestamp, requests::remove, parts, null, null);
        requests.put(timestamp, request);
        try {
            RegisteredBuffer out = context.allocate(KvWire.HEADER);
            KvWire.header(KvWire.le(out.buffer()), KvWire.BARRIER, 0, workers, timestamp);
            send(0, out, KvWire.HEADER, request);
        } catch (RuntimeException e) {
            request.serverGone(0, new KvException("sending to server 0 failed: " + e.getMessage(), e));
        }
        return timestamp;
    }

    /**
     * Pulls each key's value into its slot of {@code destination} (registered with REMOTE_WRITE):
     * slots are {@code lengths[i]} bytes, back to back from offset 0; when the pull is done,
     * {@code lengths[i]} holds the value's length. The server writes straight into the slots.
     *
     * @param keys        the keys, any order
     * @param destination where the values go (registered with REMOTE_WRITE)
     * @param lengths     in: each slot's capacity; out, once done: each value's length
     * @return the request's timestamp, for {@link #waitFor} or {@link #request}
     */
    public long pull(long[] keys, RegisteredBuffer destination, int[] lengths) {
        KvArguments.requireRemoteWrite(destination);
        int[] offsets = KvArguments.offsets(keys, lengths, destination);
        int[][] byServer = partition(keys);
        long timestamp = nextTimestamp.getAndIncrement();
        KvRequest request = messageRequest(timestamp, lengths, byServer);
        toEachServer(byServer, request, server -> pullFrom(server, keys, destination, lengths, offsets, byServer[server], timestamp, request));
        return timestamp;
    }

    /** A request with one message to each server that owns one of its keys, kept until its outcome is known. */
    private KvRequest messageRequest(long timestamp, int[] lengths, int[][] byServer) {
        int[] parts = new int[byServer.length];
        Arrays.setAll(parts, s -> byServer[s].length > 0 ? 1 : 0);
        KvRequest request = new KvRequest(timestamp, requests::remove, parts, lengths, byServer);
        requests.put(timestamp, request);
        return request;
    }

    /** Sends each server with keys its part; one that cannot be sent (its channel closed) fails, it does not hang. */
    private static void toEachServer(int[][] byServer, KvRequest request, IntConsumer send) {
        for (int s = 0; s < byServer.length; s++) {
            if (byServer[s].length == 0) {
                continue;
            }
            try {
                send.accept(s);
            } catch (RuntimeException e) {
                request.serverGone(s, new KvException("sending to server " + s + " failed: " + e.getMessage(), e));
            }
        }
    }

    /** One server's part of a pull: one PULL naming where each of its keys' values goes. */
    private void pullFrom(int server, long[] keys, RegisteredBuffer destination, int[] lengths, int[] offsets, int[] mine,
                          long timestamp, KvRequest request) {
        int size = KvWire.HEADER + mine.length * KvWire.PULL_ENTRY;
        RegisteredBuffer out = context.allocate(size);
        KvWire.encodePull(out.buffer(), timestamp, keys, lengths, mine, destination, offsets);
        send(server, out, size, request);
    }

    /**
     * ps-lite's PushPull, one round trip per server: pushes {@code lengths[i]} bytes per key, packed from
     * offset 0 of {@code values} (as {@link #push}: applied whole or not at all at each server), and has
     * each server write the key's merged value into {@code destination} at the same offset. The
     * request is done once the merged values are there. When every key a server owns has a free write
     * slot there, their values go straight into the slots (RDMA WRITEs) and a small SLOT_PUSHPULL
     * names them; otherwise they are copied into one PUSHPULL message. Leave {@code values} unchanged
     * until done.
     *
     * @param keys        the keys, any order, each once
     * @param values      the values, back to back from offset 0
     * @param lengths     each value's length in bytes
     * @param destination where the merged values go, at the values' offsets (registered with REMOTE_WRITE)
     * @return the request's timestamp, for {@link #waitFor} or {@link #request}
     * @throws IllegalArgumentException when a key appears twice, or the lengths do not fit the buffers
     */
    public long pushPull(long[] keys, RegisteredBuffer values, int[] lengths, RegisteredBuffer destination) {
        KvArguments.requireRemoteWrite(destination);
        int[] offsets = KvArguments.offsets(keys, lengths, values);
        KvArguments.offsets(keys, lengths, destination);
        KvArguments.requireDistinct(keys);
        int[][] byServer = partition(keys);
        long timestamp = nextTimestamp.getAndIncrement();
        KvRequest request = messageRequest(timestamp, lengths, byServer);
        toEachServer(byServer, request, server -> {
            PushSlots.Slot[] claimed = pushSlots.get(server).claimAll(keys, lengths, byServer[server], timestamp);
            if (claimed != null) {
                pushPullThroughSlots(server, values, lengths, offsets, byServer[server], claimed, destination, request);
                return;
            }
            long size = KvWire.HEADER + (long) byServer[server].length * KvWire.PUSHPULL_ENTRY;
            for (int i : byServer[server]) {
                size += lengths[i];
            }
            RegisteredBuffer out = context.allocate(Math.toIntExact(size));
            KvWire.encodePushPull(out.buffer(), timestamp, keys, lengths, byServer[server], values.buffer(), offsets, destination);
            messagePushes[server].incrementAndGet(); // a slot write must not overtake it (see push)
            request.done.whenComplete((v, t) -> messagePushes[server].decrementAndGet());
            send(server, out, (int) size, request);
        });
        return timestamp;
    }

    /**
     * One server's part of a PushPull by its write slots: the values written into them, then the
     * SLOT_PUSHPULL, which the server handles after the writes (channel order) and after any earlier
     * message of this worker's. A failed write breaks the channel, so the message fails too; the slots
     * stay busy until the request is settled, so no later push overwrites bytes the server still reads.
     */
    private void pushPullThroughSlots(int server, RegisteredBuffer values, int[] lengths, int[] offsets, int[] mine,
                                      PushSlots.Slot[] claimed, RegisteredBuffer destination, KvRequest request) {
        request.done.whenComplete((v, t) -> Arrays.stream(claimed).forEach(PushSlots::release));
        RdmaChannel channel = servers.get(server);
        for (int j = 0; j < mine.length; j++) {
            channel.write(values, offsets[mine[j]], claimed[j].token, 0, lengths[mine[j]]);
        }
        int size = KvWire.HEADER + mine.length * KvWire.SLOT_PUSHPULL_ENTRY;
        RegisteredBuffer out = context.allocate(size);
        KvWire.encodeSlotPushPull(out.buffer(), request.timestamp, lengths, mine, claimed, destination, offsets);
        send(server, out, size, request);
    }

    /**
     * Blocks until the request is done at every server it went to (ps-lite's Wait). It fails only once
     * every part is settled — no server still reads the values — with the first server's reason and
     * the others' suppressed in it; servers not named there applied their part. A request that
     * succeeded is forgotten as it completes, one that failed once this reported it (or once it
     * completed, if its future was taken with {@link #request}, which reports it): for a forgotten
     * request this returns at once.
     *
     * @param timestamp what {@link #push}, {@link #pull} or {@link #barrier} returned
     * @throws KvException          when a server refused the request or went away
     * @throws InterruptedException when interrupted while waiting
     */
    public void waitFor(long timestamp) throws InterruptedException {
        KvRequest request = requests.get(timestamp);
        if (request == null) {
            if (timestamp <= 0 || timestamp >= nextTimestamp.get()) {
                throw new IllegalArgumentException("no request with timestamp " + timestamp + " was issued");
            }
            return; // done and forgotten
        }
        try {
            request.done.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof KvException ? (KvException) e.getCause() : new KvException(e.getCause().getMessage(), e.getCause());
        } finally {
            requests.remove(timestamp);
        }
    }

    /**
     * The request's future, for waiting with a bound or chaining; from now on the future reports the
     * outcome and the worker forgets the request once it completed, failed or not. For a request
     * already forgotten (it succeeded, or its failure was reported) the future is completed.
     *
     * @param timestamp what {@link #push}, {@link #pull} or {@link #barrier} returned
     * @return completes when the request is done, or exceptionally with {@link KvException}
     */
    public CompletableFuture<Void> request(long timestamp) {
        KvRequest request = requests.get(timestamp);
        if (request == null) {
            if (timestamp <= 0 || timestamp >= nextTimestamp.get()) {
                throw new IllegalArgumentException("no request with timestamp " + timestamp + " was issued");
            }
            return CompletableFuture.completedFuture(null);
        }
        return request.handOut();
    }

    /**
     * Requests the worker keeps: in flight, or failed and not yet reported ({@link #waitFor}).
     *
     * @return how many
     */
    public int keptRequests() {
        return requests.size();
    }

    /**
     * Keys whose pushes go straight from this worker's memory into a write slot at their server.
     *
     * @return how many keys have a write slot
     */
    public int slots() {
        return pushSlots.stream().mapToInt(PushSlots::size).sum();
    }

    /** Closes the channels to every server: pending requests fail. */
    @Override
    public void close() {
        servers.forEach(RdmaChannel::close);
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

    private void send(int server, RegisteredBuffer out, int size, KvRequest request) {
        servers.get(server).send(out, 0, size).whenComplete((v, t) -> {
            out.close();
            if (t != null) {
                request.settle(server, new KvException("sending to server " + server + " failed: " + t.getMessage(), t));
            }
        });
    }

    private ChannelHandler handler(int server) {
        return new ChannelHandler() {
            @Override
            public void onMessage(RdmaChannel channel, RdmaMessage message) {
                ByteBuffer in = KvWire.le(message.payload());
                KvWire.guarded(channel, "to server", () -> {
                    if (in.remaining() > 0 && in.get(0) == KvWire.SLOT) {
                        pushSlots.get(server).announced(in);
                    } else {
                        answer(server, in);
                    }
                });
            }

            @Override
            public void onToken(RdmaChannel channel, RemoteBuffer token) {
                KvWire.guarded(channel, "to server", () -> pushSlots.get(server).token(token));
            }

            @Override
            public void onClose(RdmaChannel channel, Throwable cause) {
                // Requests waiting for this server fail (it cannot answer its part); the others go on.
                KvException e = new KvException("server " + server + " at " + channel.remoteAddress() + " is gone"
                        + (cause == null ? "" : ": " + cause.getMessage()), cause);
                requests.values().forEach(r -> r.serverGone(server, e));
            }
        };
    }

    private void answer(int server, ByteBuffer in) {
        byte type = in.remaining() < KvWire.HEADER ? 0 : in.get(0);
        if ((type != KvWire.ACK && type != KvWire.PULLED && type != KvWire.SLOT_ACK) || in.getShort(2) != 0) {
            throw new ProtocolException("a malformed push/pull answer (" + in.remaining() + " bytes)");
        }
        long timestamp = type == KvWire.SLOT_ACK ? pushSlots.get(server).acknowledged(in.getLong(8)) : in.getLong(8);
        KvRequest request = requests.get(timestamp);
        int status = in.get(1);
        if (request == null) {
            if (timestamp > 0 && timestamp < nextTimestamp.get()) {
                return; // the rest of a request that already failed (another server refused it) and was waited for
            }
            throw new ProtocolException("an answer for timestamp " + timestamp + ", which this worker never issued");
        }
        if (status != KvWire.OK) {
            request.settle(server, new KvException("server " + server + " refused the request: " + KvWire.status(status)));
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
        request.settle(server, null);
    }
}
