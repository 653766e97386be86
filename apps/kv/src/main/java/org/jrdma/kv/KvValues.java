package org.jrdma.kv;

import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import org.jrdma.RdmaContext;
import org.jrdma.RegisteredBuffer;

/**
 * A {@link KvServer}'s values in registered memory, and how pushes fold into them: all of a push or
 * none of it, within the quota of stored bytes. Pushes fold in on the server's event-loop thread; a
 * request handler may answer a pull from any thread, so the map, the lengths and the readers are
 * guarded by this object's lock (uncontended unless a handler answers from another thread).
 */
final class KvValues implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("org.jrdma.kv");
    private static final byte[] ZEROS = new byte[64 * 1024];

    /**
     * A key's value. Pulls write it to workers straight from here; a push that arrives while such a
     * write is in flight folds into a copy that replaces it (copy on write), and this one is freed
     * when its last write completes. Its readers and replaced flag are guarded by the KvValues' lock.
     */
    static final class Stored {
        final RegisteredBuffer buffer;
        final int length;
        int readers;
        boolean replaced;

        Stored(RegisteredBuffer buffer, int length) {
            this.buffer = buffer;
            this.length = length;
        }

        ByteBuffer view() {
            return buffer.buffer().limit(length).slice();
        }
    }

    private final RdmaContext context;
    private final MergeFunction merge;
    private final KvOptions options;
    // Guarded by this.
    private final Map<Long, Stored> values = new HashMap<>();
    private long storedBytes; // the values' bytes, all keys (KvOptions.maxStoredBytes)
    private boolean closed;

    KvValues(RdmaContext context, MergeFunction merge, KvOptions options) {
        this.context = context;
        this.merge = merge;
        this.options = options;
    }

    /** Whether a push may change a key's length: the merge replaces the value whole (an overwrite). */
    boolean lengthsMayChange() {
        return merge instanceof CheckedMerge checked && checked.replacesValue();
    }

    /** The key's value, or null when it was never pushed. */
    synchronized Stored get(long key) {
        return values.get(key);
    }

    synchronized int size() {
        return values.size();
    }

    /**
     * Starts reading the keys' values (into {@code into}) for writes to a worker, all or none: each must
     * exist and fit its capacity. A push that comes while they are read folds into a copy. Returns OK
     * (then {@link #readDone} once per value), UNKNOWN_KEY or TOO_SMALL, or -1 once closed.
     */
    synchronized int startReads(long[] keys, long[] capacities, Stored[] into) {
        if (closed) {
            return -1;
        }
        int status = check(keys, capacities);
        for (int i = 0; status == KvWire.OK && i < keys.length; i++) {
            into[i] = values.get(keys[i]);
            into[i].readers++;
        }
        return status;
    }

    /** Whether the keys' values can be read into destinations of these capacities: OK, UNKNOWN_KEY or TOO_SMALL. */
    synchronized int check(long[] keys, long[] capacities) {
        for (int i = 0; i < keys.length; i++) {
            Stored s = values.get(keys[i]);
            if (s == null) {
                return KvWire.UNKNOWN_KEY;
            } else if (s.length > capacities[i]) {
                return KvWire.TOO_SMALL;
            }
        }
        return KvWire.OK;
    }

    /** A write from the value completed (or never started): the last one frees a value a push replaced. */
    synchronized void readDone(Stored s) {
        if (--s.readers == 0 && s.replaced) {
            s.buffer.close();
        }
    }

    /**
     * Folds pushed values into the keys' (zeros for a new key), all or none: a merge that throws leaves
     * every key of the push as it was, and a new key is not created. A merge that can refuse a value
     * only by its length, before it writes ({@link CheckedMerge}: the built-in ones), is checked for every
     * key first and then runs in place; any other runs on copies that replace the values once every
     * key merged. Returns the answer's status.
     */
    synchronized int mergeAll(long[] keys, ByteBuffer[] pushed) {
        try {
            if (merge instanceof CheckedMerge checked) {
                for (int i = 0; i < keys.length; i++) {
                    checked.check(keys[i], pushed[i].remaining());
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "the merge function refused a push of " + keys.length + " key(s); none was applied", e);
            return KvWire.MERGE_FAILED;
        }
        long created = 0; // bytes the push adds: new keys, and keys whose length it changes
        for (int i = 0; i < keys.length; i++) {
            Stored s = values.get(keys[i]);
            created += pushed[i].remaining() - (s == null ? 0 : s.length);
        }
        if (storedBytes + created > options.maxStoredBytes()) {
            return KvWire.OVER_QUOTA;
        }
        boolean inPlace = merge instanceof CheckedMerge;
        Stored[] staged = new Stored[keys.length];
        try {
            for (int i = 0; i < keys.length; i++) {
                Stored s = values.get(keys[i]);
                boolean resized = s != null && s.length != pushed[i].remaining(); // only when lengthsMayChange()
                staged[i] = s != null && inPlace && s.readers == 0 && !resized ? s
                        : copyOf(resized ? null : s, pushed[i].remaining());
                merge.merge(keys[i], staged[i].view(), pushed[i]);
            }
        } catch (RuntimeException e) {
            for (int i = 0; i < keys.length; i++) {
                if (staged[i] != null && staged[i] != values.get(keys[i])) {
                    staged[i].buffer.close();
                }
            }
            LOG.log(Level.WARNING, "the merge function refused a push of " + keys.length + " key(s); none was applied", e);
            return KvWire.MERGE_FAILED;
        }
        storedBytes += created;
        for (int i = 0; i < keys.length; i++) {
            Stored old = values.get(keys[i]);
            if (staged[i] == old) {
                continue;
            }
            values.put(keys[i], staged[i]);
            if (old != null) {
                old.replaced = true;
                if (old.readers == 0) {
                    old.buffer.close();
                } // else a pull still writes from it: freed when the last such write completes
            }
        }
        return KvWire.OK;
    }

    /** A new value holding {@code from}'s bytes, or zeros for a new key (pool memory: filled here). */
    private Stored copyOf(Stored from, int length) {
        Stored fresh = new Stored(context.allocate(Math.max(length, 1)), length);
        ByteBuffer into = fresh.view();
        if (from != null) {
            into.put(from.view());
        } else {
            while (into.hasRemaining()) {
                into.put(ZEROS, 0, Math.min(ZEROS.length, into.remaining()));
            }
        }
        return fresh;
    }

    /** Frees every value. */
    @Override
    public synchronized void close() {
        closed = true;
        values.values().forEach(s -> s.buffer.close());
        values.clear();
    }
}
