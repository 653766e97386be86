package org.jrdma.kv;

import java.nio.ByteBuffer;

/**
 * How a {@link KvServer} folds a pushed value into the stored one (ps-lite's server handle). Called on
 * the server's event-loop thread; {@code stored} and {@code pushed} have the same length. A merge that
 * throws refuses that push — none of its keys is changed or created, the worker's request fails — and
 * the server goes on.
 */
@FunctionalInterface
public interface MergeFunction {
    /**
     * Folds {@code pushed} into {@code stored}.
     *
     * @param key    the key
     * @param stored the stored value, to update in place (its bytes from position to limit)
     * @param pushed the pushed value, as long as {@code stored}; valid only during the call
     */
    void merge(long key, ByteBuffer stored, ByteBuffer pushed);

    /**
     * Element-wise sum of little-endian float32 values (ps-lite's default); lengths must be multiples of 4.
     *
     * @return the merge function
     */
    static MergeFunction float32Sum() {
        return Float32Sum.INSTANCE;
    }

    /**
     * The pushed value replaces the stored one, also with another length (the key's length changes).
     *
     * @return the merge function
     */
    static MergeFunction overwrite() {
        return new CheckedMerge() {
            @Override
            public void check(long key, int length) {
                // any length: the stored value has the pushed one's (KvServer checks that first)
            }

            @Override
            public void merge(long key, ByteBuffer stored, ByteBuffer pushed) {
                stored.duplicate().put(pushed.duplicate());
            }

            @Override
            public boolean replacesValue() {
                return true; // a push of another length replaces the value and its length
            }
        };
    }
}
