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
 */
public record KvOptions(int maxKeysPerRequest, int maxValueBytes, int slotMinBytes, long maxSlotBytesPerWorker) {
    /** 65536 keys, 64 MiB per value, slots for values of 64 KiB and more, 256 MiB of slots per worker. */
    public static final KvOptions DEFAULTS = new KvOptions(65536, 64 << 20, 64 << 10, 256L << 20);

    /**
     * Checks the bounds.
     *
     * @param maxKeysPerRequest     keys in one push or pull (per server)
     * @param maxValueBytes         bytes per value
     * @param slotMinBytes          the smallest value that gets a write slot
     * @param maxSlotBytesPerWorker slot memory per worker (0: no slots)
     * @throws IllegalArgumentException when a bound is not positive (maxSlotBytesPerWorker: negative)
     */
    public KvOptions {
        if (maxKeysPerRequest < 1 || maxValueBytes < 1 || slotMinBytes < 1 || maxSlotBytesPerWorker < 0) {
            throw new IllegalArgumentException("maxKeysPerRequest, maxValueBytes and slotMinBytes must be positive,"
                    + " maxSlotBytesPerWorker not negative");
        }
    }

    /**
     * These bounds with no write slots: every push travels in a message.
     *
     * @return the options without slots
     */
    public KvOptions withoutSlots() {
        return new KvOptions(maxKeysPerRequest, maxValueBytes, slotMinBytes, 0);
    }
}
