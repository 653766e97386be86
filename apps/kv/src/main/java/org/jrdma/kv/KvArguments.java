package org.jrdma.kv;

import java.util.Arrays;
import org.jrdma.Access;
import org.jrdma.RegisteredBuffer;

/** Checks of what a {@link KvWorker} call is given, before anything is sent. */
final class KvArguments {
    private KvArguments() {
    }

    /** Where each key's value starts when they are packed back to back; they must fit the buffer. */
    static int[] offsets(long[] keys, int[] lengths, RegisteredBuffer buffer) {
        if (keys.length != lengths.length || keys.length == 0) {
            throw new IllegalArgumentException(keys.length + " keys and " + lengths.length + " lengths");
        }
        int[] offsets = new int[keys.length];
        long at = 0;
        for (int i = 0; i < keys.length; i++) {
            if (lengths[i] < 0) {
                throw new IllegalArgumentException("length " + lengths[i] + " of key " + keys[i]);
            }
            offsets[i] = (int) Math.min(at, Integer.MAX_VALUE);
            at += lengths[i];
        }
        if (at > buffer.length()) {
            throw new IllegalArgumentException("the values take " + at + " bytes; the buffer has " + buffer.length());
        }
        return offsets;
    }

    static void requireDistinct(long[] keys) {
        long[] sorted = keys.clone();
        Arrays.sort(sorted);
        for (int i = 1; i < sorted.length; i++) {
            if (sorted[i] == sorted[i - 1]) { // it would be merged twice: almost surely a mistake
                throw new IllegalArgumentException("key " + sorted[i] + " appears twice in one push");
            }
        }
    }

    static void requireRemoteWrite(RegisteredBuffer destination) {
        if (!destination.access().contains(Access.REMOTE_WRITE)) {
            throw new IllegalArgumentException("pull destinations are written by the servers: register or allocate them"
                    + " with Access.REMOTE_WRITE");
        }
    }
}
