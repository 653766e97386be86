package org.jrdma.kv;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jrdma.ChannelHandler;
import org.jrdma.ProtocolException;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaClosedException;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaException;
import org.jrdma.RdmaMessage;
import org.jrdma.RdmaServer;
import org.jrdma.RegisteredBuffer;
import org.jrdma.RemoteBuffer;

/**
 * A ps-lite key-value server (docs/kv.md): holds a value per key in registered memory, folds pushes
 * into it with a {@link MergeFunction}, and writes pulled values straight into the workers' memory
 * (RDMA WRITE, then PULLED on the same queue pair). Several servers each own a range of the key space
 * ({@link KvWorker} picks the server). Requests are handled on the context's event-loop thread, one at
 * a time: a push is applied whole or refused whole — its keys and lengths are checked first, and a
 * merge function that refuses one value leaves every key of the push as it was. Built on the public API.
 */
public final class KvServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("org.jrdma.kv");

    /** A worker waiting in the barrier, with the timestamp its ACK carries. */
    private record Waiting(RdmaChannel channel, long timestamp) {
    }

    private final RdmaContext context;
    private final KvOptions options;
    private final RdmaServer server;
    private final KvValues values;
    private final Set<RdmaChannel> channels = ConcurrentHashMap.newKeySet();
    private final Map<RdmaChannel, WorkerSlots> slots = new ConcurrentHashMap<>();
    private final List<Waiting> barrier = new ArrayList<>(); // the loop thread's
    private int barrierSize;

    private final KvRequestHandler requests;

    private KvServer(RdmaContext context, InetSocketAddress address, MergeFunction merge, KvOptions options,
                     KvRequestHandler requests) {
        this.context = context;
        this.values = new KvValues(context, merge, options);
        this.options = options;
        this.requests = requests;
        this.server = context.listen(address, handler());
    }

    /**
     * Starts a server.
     *
     * @param context the context whose device the server listens on
     * @param address an address of that device (port 0 picks a free one)
     * @param merge   folds pushed values into stored ones
     * @param options the bounds of what workers may ask
     * @return the listening server
     */
    public static KvServer listen(RdmaContext context, InetSocketAddress address, MergeFunction merge, KvOptions options) {
        return new KvServer(context, address, merge, options, KvRequestHandler.answerAtOnce());
    }

    /**
     * Starts a server whose accepted requests go to {@code requests}, which answers them — at once or
     * later (ps-lite's request handle with a delayed response: synchronous aggregation).
     *
     * @param context  the context whose device the server listens on
     * @param address  an address of that device (port 0 picks a free one)
     * @param merge    folds pushed values into stored ones
     * @param options  the bounds of what workers may ask
     * @param requests sees each accepted push, pull and PushPull and answers it
     * @return the listening server
     */
    public static KvServer listen(RdmaContext context, InetSocketAddress address, MergeFunction merge, KvOptions options,
                                  KvRequestHandler requests) {
        return new KvServer(context, address, merge, options, Objects.requireNonNull(requests, "requests"));
    }

    /** A request was accepted: the handler answers it (now or later); a handler that throws has it answered now. */
    private void accepted(RdmaChannel channel, KvServerRequest.Kind kind, long[] keys, long timestamp, Runnable answer) {
        KvServerRequest request = new KvServerRequest(channel.remoteAddress(), kind, keys, timestamp, answer);
        try {
            requests.onRequest(request);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "the request handler threw; the " + kind + " is answered now", e);
            request.answer();
        }
    }

    /**
     * Where the server listens.
     *
     * @return the address workers connect to
     */
    public InetSocketAddress localAddress() {
        return server.localAddress();
    }

    /**
     * Keys stored.
     *
     * @return how many keys have a value
     */
    public int size() {
        return values.size();
    }

    /** Stops serving: closes the listener and every worker's channel (their requests fail); frees the values. */
    @Override
    public void close() {
        server.close();
        channels.forEach(RdmaChannel::close);
        values.close();
    }

    private ChannelHandler handler() {
        return new ChannelHandler() {
            @Override
            public void onOpen(RdmaChannel channel) {
                channels.add(channel);
            }

            @Override
            public void onMessage(RdmaChannel channel, RdmaMessage message) {
                ByteBuffer in = message.payload();
                KvWire.guarded(channel, "of worker", () -> {
                    byte type = in.remaining() > 0 ? in.get(0) : 0;
                    if (type == KvWire.PUSH) {
                        push(channel, in);
                    } else if (type == KvWire.PUSHPULL) {
                        pushPull(channel, in);
                    } else if (type == KvWire.SLOT_PUSHPULL) {
                        slotPushPull(channel, in);
                    } else if (type == KvWire.PULL) {
                        pull(channel, in);
                    } else if (type == KvWire.BARRIER) {
                        barrier(channel, in);
                    } else {
                        throw new ProtocolException("an unknown push/pull message type " + type);
                    }
                });
            }

            @Override
            public void onImmediate(RdmaChannel channel, int slot) {
                KvWire.guarded(channel, "of worker", () -> pushedIntoSlot(channel, slot));
            }

            @Override
            public void onClose(RdmaChannel channel, Throwable cause) {
                channels.remove(channel);
                WorkerSlots gone = slots.remove(channel);
                if (gone != null) {
                    gone.close();
                }
                leaveBarrier(channel);
                if (cause instanceof RdmaClosedException) { // the worker left (its close, its process's end): routine
                    LOG.log(Level.DEBUG, "the channel of worker " + channel.remoteAddress() + " closed: " + cause.getMessage());
                } else if (cause != null) {
                    LOG.log(Level.WARNING, "the channel of worker " + channel.remoteAddress() + " closed: " + cause.getMessage());
                }
            }
        };
    }

    /** A PUSH or PUSHPULL, checked field by field: its keys, lengths and values (views of the message). */
    private record Pushed(long timestamp, long[] keys, int[] lengths, ByteBuffer[] values) {
    }

    /**
     * Reads a PUSH ({@code entry} 16 bytes) or PUSHPULL (32: the destination follows) message; a field
     * out of bounds is a protocol violation.
     */
    private Pushed parse(ByteBuffer in, int entry) {
        int count = KvWire.count(in, entry, options.maxKeysPerRequest());
        long total = KvWire.HEADER + (long) count * entry;
        long[] keys = new long[count];
        int[] lengths = new int[count];
        for (int i = 0; i < count; i++) {
            int at = KvWire.HEADER + i * entry;
            keys[i] = in.getLong(at);
            lengths[i] = in.getInt(at + 8);
            if (lengths[i] < 0 || lengths[i] > options.maxValueBytes() || in.getInt(at + 12) != 0) {
                throw new ProtocolException("a pushed value of " + lengths[i] + " bytes (at most " + options.maxValueBytes() + ")");
            }
            total += lengths[i];
        }
        if (total != in.remaining()) {
            throw new ProtocolException("a push whose values add up to " + total + " bytes in a message of " + in.remaining());
        }
        ByteBuffer[] pushed = new ByteBuffer[count];
        int valueAt = KvWire.HEADER + count * entry;
        for (int i = 0; i < count; i++) {
            pushed[i] = in.duplicate().limit(valueAt + lengths[i]).position(valueAt).slice();
            valueAt += lengths[i];
        }
        return new Pushed(in.getLong(8), keys, lengths, pushed);
    }

    /** Folds a push in, all or nothing: every key and length checked first. Returns the answer's status. */
    private int apply(Pushed push) {
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < push.keys.length; i++) {
            KvValues.Stored s = values.get(push.keys[i]);
            if (!seen.add(push.keys[i])) {
                return KvWire.DUPLICATE_KEY;
            } else if (s != null && s.length != push.lengths[i] && !values.lengthsMayChange()) {
                return KvWire.WRONG_LENGTH;
            }
        }
        return values.mergeAll(push.keys, push.values);
    }

    private void push(RdmaChannel channel, ByteBuffer in) {
        Pushed push = parse(in, KvWire.PUSH_ENTRY);
        int status = apply(push);
        if (status == KvWire.OK) { // keys pushed from here on may go straight into a slot of their own
            WorkerSlots mine = slots.computeIfAbsent(channel, c -> new WorkerSlots());
            for (int i = 0; i < push.keys.length; i++) {
                mine.offer(context, channel, push.keys[i], push.lengths[i], options);
            }
        }
        if (status == KvWire.OK) {
            accepted(channel, KvServerRequest.Kind.PUSH, push.keys, push.timestamp,
                    () -> reply(channel, KvWire.ACK, KvWire.OK, 0, push.timestamp, null));
        } else {
            reply(channel, KvWire.ACK, status, 0, push.timestamp, null);
        }
    }

    /**
     * ps-lite's PushPull: the push folded in as a PUSH is, then each key's merged value written into the
     * worker's destination, and PULLED — one round trip. A destination smaller than its value refuses
     * the whole request before anything is applied.
     */
    private void pushPull(RdmaChannel channel, ByteBuffer in) {
        Pushed push = parse(in, KvWire.PUSHPULL_ENTRY);
        answerPushPull(channel, push, Destinations.read(in, push.keys.length, KvWire.PUSHPULL_ENTRY, 16));
    }

    /**
     * A PushPull whose values the worker wrote into its slots (they arrived before this message): the
     * slots' bytes folded in as a PUSHPULL's values are, the merged values written back, PULLED.
     */
    private void slotPushPull(RdmaChannel channel, ByteBuffer in) {
        int count = KvWire.count(in, KvWire.SLOT_PUSHPULL_ENTRY, options.maxKeysPerRequest());
        if (KvWire.HEADER + (long) count * KvWire.SLOT_PUSHPULL_ENTRY != in.remaining()) {
            throw new ProtocolException("a slot push-pull of " + count + " keys in a message of " + in.remaining() + " bytes");
        }
        WorkerSlots mine = slots.get(channel);
        if (mine == null) {
            throw new ProtocolException("a slot push-pull from a worker that has no slots");
        }
        long[] keys = new long[count];
        int[] lengths = new int[count];
        ByteBuffer[] written = new ByteBuffer[count];
        for (int i = 0; i < count; i++) {
            int at = KvWire.HEADER + i * KvWire.SLOT_PUSHPULL_ENTRY;
            int id = in.getInt(at);
            keys[i] = mine.key(id);
            written[i] = mine.written(id);
            lengths[i] = written[i].remaining();
            if (in.getInt(at + 4) != lengths[i]) {
                throw new ProtocolException("a slot push-pull of " + in.getInt(at + 4) + " bytes from slot " + id
                        + " of " + lengths[i]);
            }
        }
        answerPushPull(channel, new Pushed(in.getLong(8), keys, lengths, written),
                Destinations.read(in, count, KvWire.SLOT_PUSHPULL_ENTRY, 8));
    }

    /**
     * The rest of a PushPull whose fields checked out: applied whole or not at all (a destination smaller
     * than its pushed value refuses it first), then the handler's; its answer writes the merged values back.
     */
    private void answerPushPull(RdmaChannel channel, Pushed push, Destinations destinations) {
        int status = destinations.fit(push.lengths) ? apply(push) : KvWire.TOO_SMALL;
        if (status == KvWire.OK) {
            accepted(channel, KvServerRequest.Kind.PUSH_PULL, push.keys, push.timestamp,
                    () -> writeBack(channel, push.timestamp, push.keys, destinations, KvWire.APPLIED_TOO_SMALL));
        } else {
            reply(channel, KvWire.PULLED, status, 0, push.timestamp, null);
        }
    }

    /**
     * The answer of a pull or PushPull, on whichever thread answers: each key's value as it is now,
     * written straight from it into the worker's destination (a push that comes before the write
     * completes folds into a copy), then PULLED with the lengths. A value that no longer fits answers
     * {@code tooSmall} with nothing written; a closed server or a worker gone answers nothing.
     */
    private void writeBack(RdmaChannel channel, long timestamp, long[] keys, Destinations destinations, int tooSmall) {
        KvValues.Stored[] reading = new KvValues.Stored[keys.length];
        int status = values.startReads(keys, destinations.capacities, reading);
        if (status < 0) {
            return;
        } else if (status != KvWire.OK) {
            reply(channel, KvWire.PULLED, status == KvWire.TOO_SMALL ? tooSmall : status, 0, timestamp, null);
            return;
        }
        int[] lengths = new int[keys.length];
        int i = 0;
        try {
            for (; i < keys.length; i++) {
                KvValues.Stored s = reading[i];
                lengths[i] = s.length;
                if (s.length == 0) {
                    values.readDone(s);
                    continue;
                }
                RemoteBuffer destination = KvWire.destination(destinations.addresses[i], s.length, destinations.rkeys[i]);
                channel.write(s.buffer, 0, destination, 0, s.length).whenComplete((v, t) -> values.readDone(s));
            }
        } catch (RdmaException gone) { // the channel closed: the worker's request failed already
            for (; i < keys.length; i++) {
                values.readDone(reading[i]);
            }
            return;
        }
        reply(channel, KvWire.PULLED, KvWire.OK, keys.length, timestamp, lengths);
    }

    /** Where a pull's or PushPull's values go at the worker: per key its address, rkey and capacity. */
    private record Destinations(long[] addresses, int[] rkeys, long[] capacities) {
        /** From {@code count} entries of {@code entry} bytes, the u64 address, u32 rkey, u32 capacity at {@code at}. */
        static Destinations read(ByteBuffer in, int count, int entry, int at) {
            Destinations d = new Destinations(new long[count], new int[count], new long[count]);
            for (int i = 0; i < count; i++) {
                int field = KvWire.HEADER + i * entry + at;
                d.addresses[i] = in.getLong(field);
                d.rkeys[i] = in.getInt(field + 8);
                d.capacities[i] = Integer.toUnsignedLong(in.getInt(field + 12));
            }
            return d;
        }

        boolean fit(int[] lengths) {
            for (int i = 0; i < lengths.length; i++) {
                if (lengths[i] > capacities[i]) {
                    return false;
                }
            }
            return true;
        }
    }

    /** The worker wrote a value into one of its slots (immediate = slot id): fold it in, answer SLOT_ACK. */
    private void pushedIntoSlot(RdmaChannel channel, int slot) {
        WorkerSlots mine = slots.get(channel);
        if (mine == null) {
            throw new ProtocolException("a write with immediate " + slot + " from a worker that has no slots");
        }
        long key = mine.key(slot);
        int status = values.mergeAll(new long[] {key}, new ByteBuffer[] {mine.written(slot)});
        if (status == KvWire.OK) {
            long id = Integer.toUnsignedLong(slot);
            accepted(channel, KvServerRequest.Kind.PUSH, new long[] {key}, id,
                    () -> reply(channel, KvWire.SLOT_ACK, KvWire.OK, 0, id, null));
        } else {
            reply(channel, KvWire.SLOT_ACK, status, 0, Integer.toUnsignedLong(slot), null);
        }
    }

    /** ps-lite's barrier: answered once {@code count} workers are in it (server 0 keeps it). */
    private void barrier(RdmaChannel channel, ByteBuffer in) {
        KvWire.le(in);
        if (in.remaining() != KvWire.HEADER || in.get(1) != 0 || in.getShort(2) != 0) {
            throw new ProtocolException("a malformed BARRIER (" + in.remaining() + " bytes)");
        }
        int size = in.getInt(4);
        long timestamp = in.getLong(8);
        if (size < 1 || size > KvWire.MAX_BARRIER) {
            throw new ProtocolException("a barrier of " + size + " workers (at most " + KvWire.MAX_BARRIER + ")");
        }
        if (barrier.stream().anyMatch(w -> w.channel == channel)) {
            throw new ProtocolException("a worker entered the barrier twice");
        }
        if (!barrier.isEmpty() && size != barrierSize) {
            reply(channel, KvWire.ACK, KvWire.BARRIER_MISMATCH, 0, timestamp, null);
            return;
        }
        barrierSize = size;
        barrier.add(new Waiting(channel, timestamp));
        if (barrier.size() == size) {
            barrier.forEach(w -> reply(w.channel, KvWire.ACK, KvWire.OK, 0, w.timestamp, null));
            barrier.clear();
        }
    }

    /**
     * A worker went away while others wait in the barrier: it may be one they wait for (the server does
     * not know the group), and then they would wait forever — so the barrier fails for them.
     */
    private void leaveBarrier(RdmaChannel channel) {
        barrier.removeIf(w -> w.channel == channel);
        barrier.forEach(w -> reply(w.channel, KvWire.ACK, KvWire.BARRIER_BROKEN, 0, w.timestamp, null));
        barrier.clear();
    }

    /** A PULL: refused at once for a key never pushed or a destination too small, else the handler's. */
    private void pull(RdmaChannel channel, ByteBuffer in) {
        int count = KvWire.count(in, KvWire.PULL_ENTRY, options.maxKeysPerRequest());
        long timestamp = in.getLong(8);
        if (KvWire.HEADER + (long) count * KvWire.PULL_ENTRY != in.remaining()) {
            throw new ProtocolException("a pull of " + count + " keys in a message of " + in.remaining() + " bytes");
        }
        long[] keys = new long[count];
        for (int i = 0; i < count; i++) {
            keys[i] = in.getLong(KvWire.HEADER + i * KvWire.PULL_ENTRY);
        }
        Destinations destinations = Destinations.read(in, count, KvWire.PULL_ENTRY, 8);
        int status = values.check(keys, destinations.capacities);
        if (status == KvWire.OK) {
            accepted(channel, KvServerRequest.Kind.PULL, keys, timestamp,
                    () -> writeBack(channel, timestamp, keys, destinations, KvWire.TOO_SMALL));
        } else {
            reply(channel, KvWire.PULLED, status, 0, timestamp, null);
        }
    }

    /** ACK or PULLED (with the values' lengths), after this request's writes on the same queue pair. */
    private void reply(RdmaChannel channel, byte type, int status, int count, long timestamp, int[] lengths) {
        int size = KvWire.HEADER + (lengths == null ? 0 : 4 * lengths.length);
        RegisteredBuffer out;
        try {
            out = context.allocate(size);
        } catch (RdmaException closing) {
            return;
        }
        ByteBuffer b = KvWire.le(out.buffer());
        KvWire.header(b, type, status, lengths == null ? 0 : count, timestamp);
        for (int i = 0; lengths != null && i < lengths.length; i++) {
            b.putInt(KvWire.HEADER + 4 * i, lengths[i]);
        }
        channel.send(out, 0, size).whenComplete((v, t) -> out.close());
    }
}
