package org.jrdma.keyed;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jrdma.RegisteredBuffer;

/**
 * A producer's published values, fetched by consumers over any number of {@link KeyedChannel}s. A
 * value is a window of a registered buffer plus small metadata (at most 1024 bytes: TensorFlow sends
 * dtype and shape), or a dead value (metadata only). It stays published — fetchable any number of
 * times — until {@link #unpublish} or {@link #cleanup} of its step; the buffer must stay open and
 * unchanged until then. A fetch that arrives before its value waits here and is answered the moment
 * the value is published. Thread-safe.
 */
public final class KeyedStore {
    /** A published value; {@code error} non-null: the producer could not make it (the text fetchers get). */
    record Value(RegisteredBuffer buffer, int offset, int length, byte[] metadata, boolean dead, byte[] error) {
    }

    private record Waiting(KeyedChannel channel, KeyedWire.Fetch fetch) {
    }

    // Guarded by this.
    private final Map<TransferKey, Value> values = new HashMap<>();
    private final Map<TransferKey, List<Waiting>> waiting = new HashMap<>();

    /**
     * Publishes bytes [offset, offset + length) of {@code value}; fetches waiting for the key are answered now.
     *
     * @param key      name and step
     * @param value    the registered bytes (read by the device when fetched: keep them unchanged and open
     *                 until unpublished)
     * @param offset   where the value starts in {@code value}
     * @param length   the value's length
     * @param metadata small application bytes fetchers receive with it (dtype and shape, say)
     */
    public void publish(TransferKey key, RegisteredBuffer value, int offset, int length, byte[] metadata) {
        Objects.requireNonNull(value, "value");
        if (offset < 0 || length < 0 || offset > value.length() || length > value.length() - offset) {
            throw new IllegalArgumentException("range [" + offset + ", " + offset + "+" + length + ") outside the buffer of "
                    + value.length() + " bytes");
        }
        put(key, new Value(value, offset, length, checked(metadata), false, null));
    }

    /**
     * Publishes all of {@code value}.
     *
     * @param key      name and step
     * @param value    the registered bytes (keep them unchanged and open until unpublished)
     * @param metadata small application bytes fetchers receive with it
     */
    public void publish(TransferKey key, RegisteredBuffer value, byte[] metadata) {
        publish(key, value, 0, value.length(), metadata);
    }

    /**
     * Publishes a dead value: no bytes, only metadata (fetches complete with {@link Fetched#dead()}).
     *
     * @param key      name and step
     * @param metadata small application bytes fetchers receive
     */
    public void publishDead(TransferKey key, byte[] metadata) {
        put(key, new Value(null, 0, 0, checked(metadata), true, null));
    }

    /**
     * Publishes that the value of {@code key} could not be made (TensorFlow's error status): its
     * fetches, waiting and later ones, fail with {@link FetchFailedException} carrying {@code reason}.
     *
     * @param key    name and step
     * @param reason why, for the consumer (at most 1024 bytes as UTF-8)
     */
    public void publishError(TransferKey key, String reason) {
        byte[] text = Objects.requireNonNull(reason, "reason").getBytes(StandardCharsets.UTF_8);
        if (text.length > KeyedWire.MAX_METADATA) {
            throw new IllegalArgumentException("an error text of " + text.length + " bytes (at most "
                    + KeyedWire.MAX_METADATA + " as UTF-8)");
        }
        put(key, new Value(null, 0, 0, new byte[0], false, text));
    }

    /**
     * Withdraws a value; fetches already being answered complete.
     *
     * @param key name and step
     * @return false if it was not published
     */
    public synchronized boolean unpublish(TransferKey key) {
        return values.remove(key) != null;
    }

    /**
     * Drops every value of the step and fails the fetches waiting for one of its keys with
     * {@link FetchCancelledException} (TensorFlow's CleanupAll at the end of a step).
     *
     * @param step the step id
     * @return the number of values dropped
     */
    public int cleanup(long step) {
        List<Waiting> cancelled = new ArrayList<>();
        int dropped = 0;
        synchronized (this) {
            for (Iterator<TransferKey> it = values.keySet().iterator(); it.hasNext();) {
                if (it.next().step() == step) {
                    it.remove();
                    dropped++;
                }
            }
            for (Iterator<Map.Entry<TransferKey, List<Waiting>>> it = waiting.entrySet().iterator(); it.hasNext();) {
                Map.Entry<TransferKey, List<Waiting>> entry = it.next();
                if (entry.getKey().step() == step) {
                    cancelled.addAll(entry.getValue());
                    it.remove();
                }
            }
        }
        for (Waiting w : cancelled) {
            w.channel.parkedGone();
            w.channel.cancelled(w.fetch.id(), KeyedWire.CANCELLED_CLEANUP);
        }
        return dropped;
    }

    /**
     * How many values are published.
     *
     * @return the count
     */
    public synchronized int size() {
        return values.size();
    }

    /**
     * How many fetches wait here for values not published yet (over all channels).
     *
     * @return the count
     */
    public synchronized int waitingFetches() {
        int n = 0;
        for (List<Waiting> list : waiting.values()) {
            n += list.size();
        }
        return n;
    }

    private static byte[] checked(byte[] metadata) {
        byte[] copy = metadata == null ? new byte[0] : metadata.clone();
        if (copy.length > KeyedWire.MAX_METADATA) {
            throw new IllegalArgumentException("metadata of " + copy.length + " bytes; at most " + KeyedWire.MAX_METADATA);
        }
        return copy;
    }

    private void put(TransferKey key, Value value) {
        List<Waiting> answered;
        synchronized (this) {
            if (values.containsKey(key)) {
                throw new IllegalStateException(key + " is published already (unpublish it first)");
            }
            values.put(key, value);
            answered = waiting.remove(key);
        }
        if (answered != null) {
            for (Waiting w : answered) {
                w.channel.parkedGone();
                w.channel.serve(w.fetch, value);
            }
        }
    }

    // ---- for KeyedChannel ------------------------------------------------------------------------

    /** The value of the fetch's key, or null: then the fetch waits here (the channel counted it). */
    synchronized Value valueOrWait(KeyedChannel channel, KeyedWire.Fetch fetch) {
        Value value = values.get(fetch.key());
        if (value == null) {
            waiting.computeIfAbsent(fetch.key(), k -> new ArrayList<>(1)).add(new Waiting(channel, fetch));
        }
        return value;
    }

    /** Drops a waiting fetch of the channel (its consumer gave up); false if it is not waiting any more. */
    synchronized boolean dropWaiting(KeyedChannel channel, long id) {
        for (Iterator<Map.Entry<TransferKey, List<Waiting>>> it = waiting.entrySet().iterator(); it.hasNext();) {
            List<Waiting> list = it.next().getValue();
            if (list.removeIf(w -> w.channel == channel && w.fetch.id() == id)) {
                if (list.isEmpty()) {
                    it.remove();
                }
                return true;
            }
        }
        return false;
    }

    /** The channel closed: its waiting fetches go. */
    synchronized void forget(KeyedChannel channel) {
        waiting.values().forEach(list -> list.removeIf(w -> w.channel == channel));
        waiting.values().removeIf(List::isEmpty);
    }
}
