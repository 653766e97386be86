package org.jrdma.kv;

/**
 * Bounds of the push/pull layer: {@code maxKeysPerRequest} keys in one push or pull (per server), and
 * {@code maxValueBytes} per value; a request beyond either is a protocol violation that closes the
 * worker's channel (the server allocates nothing for it).
 */
public record KvOptions(int maxKeysPerRequest, int maxValueBytes) {
    /** 65536 keys, 64 MiB per value. */
    public static final KvOptions DEFAULTS = new KvOptions(65536, 64 << 20);

    public KvOptions {
        if (maxKeysPerRequest < 1 || maxValueBytes < 1) {
            throw new IllegalArgumentException("maxKeysPerRequest and maxValueBytes must be positive");
        }
    }
}
