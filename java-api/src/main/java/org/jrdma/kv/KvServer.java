package org.jrdma.kv;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jrdma.ChannelHandler;
import org.jrdma.ProtocolException;
import org.jrdma.RdmaChannel;
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
 * a time: a push is applied whole or refused whole (lengths are checked first). Built on the public API.
 */
public final class KvServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("org.jrdma.kv");
    private static final byte[] ZEROS = new byte[64 * 1024];

    private record Stored(RegisteredBuffer buffer, int length) {
        ByteBuffer view() {
            return buffer.buffer().limit(length).slice();
        }
    }

    private final RdmaContext context;
    private final MergeFunction merge;
    private final KvOptions options;
    private final RdmaServer server;
    private final Map<Long, Stored> values = new HashMap<>(); // the loop thread's; size() reads under this
    private final Set<RdmaChannel> channels = ConcurrentHashMap.newKeySet();

    private KvServer(RdmaContext context, InetSocketAddress address, MergeFunction merge, KvOptions options) {
        this.context = context;
        this.merge = merge;
        this.options = options;
        this.server = context.listen(address, handler());
    }

    public static KvServer listen(RdmaContext context, InetSocketAddress address, MergeFunction merge, KvOptions options) {
        return new KvServer(context, address, merge, options);
    }

    public InetSocketAddress localAddress() {
        return server.localAddress();
    }

    /** Keys stored. */
    public int size() {
        synchronized (values) {
            return values.size();
        }
    }

    /** Stops serving: closes the listener and every worker's channel (their requests fail); frees the values. */
    @Override
    public void close() {
        server.close();
        channels.forEach(RdmaChannel::close);
        synchronized (values) {
            values.values().forEach(s -> s.buffer.close());
            values.clear();
        }
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
                try {
                    byte type = in.remaining() > 0 ? in.get(0) : 0;
                    if (type == KvWire.PUSH) {
                        push(channel, in);
                    } else if (type == KvWire.PULL) {
                        pull(channel, in);
                    } else {
                        throw new ProtocolException("an unknown push/pull message type " + type);
                    }
                } catch (ProtocolException violation) {
                    LOG.log(Level.WARNING, "closing the channel of worker " + channel.remoteAddress() + ": " + violation.getMessage());
                    channel.close();
                }
            }

            @Override
            public void onClose(RdmaChannel channel, Throwable cause) {
                channels.remove(channel);
                if (cause != null) {
                    LOG.log(Level.WARNING, "the channel of worker " + channel.remoteAddress() + " closed: " + cause.getMessage());
                }
            }
        };
    }

    private void push(RdmaChannel channel, ByteBuffer in) {
        int count = KvWire.count(in, KvWire.PUSH_ENTRY, options.maxKeysPerRequest());
        long timestamp = in.getLong(8);
        long total = KvWire.HEADER + (long) count * KvWire.PUSH_ENTRY;
        for (int i = 0; i < count; i++) {
            int at = KvWire.HEADER + i * KvWire.PUSH_ENTRY;
            int length = in.getInt(at + 8);
            if (length < 0 || length > options.maxValueBytes() || in.getInt(at + 12) != 0) {
                throw new ProtocolException("a pushed value of " + length + " bytes (at most " + options.maxValueBytes() + ")");
            }
            total += length;
        }
        if (total != in.remaining()) {
            throw new ProtocolException("a push whose values add up to " + total + " bytes in a message of " + in.remaining());
        }
        int status = KvWire.OK;
        for (int i = 0; i < count && status == KvWire.OK; i++) { // all or nothing: check every length first
            Stored s = values.get(in.getLong(KvWire.HEADER + i * KvWire.PUSH_ENTRY));
            if (s != null && s.length != in.getInt(KvWire.HEADER + i * KvWire.PUSH_ENTRY + 8)) {
                status = KvWire.WRONG_LENGTH;
            }
        }
        int valueAt = KvWire.HEADER + count * KvWire.PUSH_ENTRY;
        for (int i = 0; i < count && status == KvWire.OK; i++) {
            long key = in.getLong(KvWire.HEADER + i * KvWire.PUSH_ENTRY);
            int length = in.getInt(KvWire.HEADER + i * KvWire.PUSH_ENTRY + 8);
            Stored s = values.get(key);
            if (s == null) {
                s = new Stored(context.allocate(Math.max(length, 1)), length); // pool memory: zeroed below
                ByteBuffer fresh = s.view();
                while (fresh.hasRemaining()) {
                    fresh.put(ZEROS, 0, Math.min(ZEROS.length, fresh.remaining()));
                }
                synchronized (values) {
                    values.put(key, s);
                }
            }
            try {
                merge.merge(key, s.view(), in.duplicate().limit(valueAt + length).position(valueAt).slice());
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "the merge function refused key " + key, e);
                status = KvWire.MERGE_FAILED;
            }
            valueAt += length;
        }
        reply(channel, KvWire.ACK, status, 0, timestamp, null);
    }

    private void pull(RdmaChannel channel, ByteBuffer in) {
        int count = KvWire.count(in, KvWire.PULL_ENTRY, options.maxKeysPerRequest());
        long timestamp = in.getLong(8);
        if (KvWire.HEADER + (long) count * KvWire.PULL_ENTRY != in.remaining()) {
            throw new ProtocolException("a pull of " + count + " keys in a message of " + in.remaining() + " bytes");
        }
        int status = KvWire.OK;
        int[] lengths = new int[count];
        for (int i = 0; i < count && status == KvWire.OK; i++) {
            int at = KvWire.HEADER + i * KvWire.PULL_ENTRY;
            Stored s = values.get(in.getLong(at));
            long capacity = Integer.toUnsignedLong(in.getInt(at + 20));
            status = s == null ? KvWire.UNKNOWN_KEY : s.length > capacity ? KvWire.TOO_SMALL : KvWire.OK;
            lengths[i] = s == null ? 0 : s.length;
        }
        if (status == KvWire.OK) {
            for (int i = 0; i < count; i++) {
                int at = KvWire.HEADER + i * KvWire.PULL_ENTRY;
                if (lengths[i] == 0) {
                    continue;
                }
                // A snapshot: a push handled before the device has read the value must not tear it.
                RegisteredBuffer snapshot = context.allocate(lengths[i]);
                snapshot.buffer().put(values.get(in.getLong(at)).view());
                RemoteBuffer destination = new RemoteBuffer(in.getLong(at + 8), lengths[i], in.getInt(at + 16));
                channel.write(snapshot, 0, destination, 0, lengths[i]).whenComplete((v, t) -> snapshot.close());
            }
        }
        reply(channel, KvWire.PULLED, status, count, timestamp, status == KvWire.OK ? lengths : null);
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
