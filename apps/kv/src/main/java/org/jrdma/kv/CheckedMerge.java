package org.jrdma.kv;

/**
 * A merge function that refuses a value only by its length, in {@link #check}, and whose
 * {@link #merge} then never throws: a {@link KvServer} checks every key of a push first and merges
 * in place. Any other merge function runs on copies, so that one refused value leaves the whole
 * push unapplied. The built-in functions are such merges.
 */
interface CheckedMerge extends MergeFunction {
    /**
     * Refuses a value of this length for this key, before anything is written.
     *
     * @param key    the key
     * @param length the pushed (and stored) value's length
     * @throws IllegalArgumentException when the function cannot merge such a value
     */
    void check(long key, int length);

    /**
     * Whether the merged value is the pushed one entirely (an overwrite): then a push may change the
     * key's length, as the stored bytes do not matter.
     *
     * @return true when a push replaces the value
     */
    default boolean replacesValue() {
        return false;
    }
}
