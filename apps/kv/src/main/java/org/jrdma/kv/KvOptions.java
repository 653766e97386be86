package org.jrdma.kv;

/**
 * Bounds of the push/pull layer.
 *
 * @param maxKeysPerRequest     keys in one push or pull (per server); more is a protocol violation that
 *                              closes the worker's channel (the server allocates nothing for it)
 * @param maxValueBytes         bytes per value; more is a protocol violation too
 * @param slotMinBytes          values of at least this many bytes get a write slot per worker once pushed:
 *                              later pushes of the key are one RDMA WRITE with immediate from the worker's
 *                              memory, with no copy (smaller values are cheaper to copy into a message)
 * @param maxSlotBytesPerWorker the memory a server gives one worker for slots; keys beyond it keep the
 *                              message path
 * @param maxStoredBytes        the bytes of values one server holds, all keys together: a push that would
 *                              create keys beyond it is refused whole ("the server's memory quota is
 *                              full"); pushes to keys it holds go on
 */
public record KvOptions(int maxKeysPerRequest, int maxValueBytes, int slotMinBytes, long maxSlotBytesPerWorker,
                        long maxStoredBytes) {
    /** 4 GiB of values per server when not said otherwise. */
    public static final long DEFAULT_MAX_STORED_BYTES = 4L << 30;

    /** 65536 keys, 64 MiB per value, slots for values of 64 KiB and more, 256 MiB of slots per worker, 4 GiB of values. */
    public static final KvOptions DEFAULTS = new KvOptions(65536, 64 << 20, 64 << 10, 256L << 20, DEFAULT_MAX_STORED_BYTES);

    /**
     * Checks the bounds.
     *
     * @param maxKeysPerRequest     keys in one push or pull (per server)
     * @param maxValueBytes         bytes per value
     * @param slotMinBytes          the smallest value that gets a write slot
     * @param maxSlotBytesPerWorker slot memory per worker (0: no slots)
     * @param maxStoredBytes        bytes of values per server
     * @throws IllegalArgumentException when a bound is not positive (maxSlotBytesPerWorker: negative)
     */
    public KvOptions {
        if (maxKeysPerRequest < 1 || maxValueBytes < 1 || slotMinBytes < 1 || maxSlotBytesPerWorker < 0
                || maxStoredBytes < 1) {
            throw new IllegalArgumentException("maxKeysPerRequest, maxValueBytes, slotMinBytes and maxStoredBytes must be"
                    + " positive, maxSlotBytesPerWorker not negative");
        }
    }

    /**
     * The bounds with the default quota of stored bytes ({@link #DEFAULT_MAX_STORED_BYTES}).
     *
     * @param maxKeysPerRequest     keys in one push or pull (per server)
     * @param maxValueBytes         bytes per value
     * @param slotMinBytes          the smallest value that gets a write slot
     * @param maxSlotBytesPerWorker slot memory per worker (0: no slots)
     */
    public KvOptions(int maxKeysPerRequest, int maxValueBytes, int slotMinBytes, long maxSlotBytesPerWorker) {
        this(maxKeysPerRequest, maxValueBytes, slotMinBytes, maxSlotBytesPerWorker, DEFAULT_MAX_STORED_BYTES);
    }

    /**
     * These bounds with no write slots: every push travels in a message.
     *
     * @return the options without slots
     */
    public KvOptions withoutSlots() {
        return new KvOptions(maxKeysPerRequest, maxValueBytes, slotMinBytes, 0, maxStoredBytes);
    }

    /**
     * These bounds with another quota of stored bytes.
     *
     * @param bytes the bytes of values one server holds
     * @return the options with that quota
     */
    public KvOptions withMaxStoredBytes(long bytes) {
        return new KvOptions(maxKeysPerRequest, maxValueBytes, slotMinBytes, maxSlotBytesPerWorker, bytes);
    }
}
