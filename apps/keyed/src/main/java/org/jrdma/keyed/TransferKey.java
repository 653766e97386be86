package org.jrdma.keyed;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * What a value is published and fetched under: a name and a step (TensorFlow's rendezvous key is a
 * tensor's name and the step id of the run that produces it). The name is 1..{@link #MAX_NAME_BYTES}
 * bytes of UTF-8.
 *
 * @param name the value's name (a tensor's, say)
 * @param step the step id
 */
public record TransferKey(String name, long step) {
    /** The longest name, in bytes of UTF-8. */
    public static final int MAX_NAME_BYTES = 1024;

    /**
     * Checks the name.
     *
     * @param name the value's name, 1..{@link #MAX_NAME_BYTES} bytes of UTF-8
     * @param step the step id
     */
    public TransferKey {
        Objects.requireNonNull(name, "name");
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes == 0 || bytes > MAX_NAME_BYTES) {
            throw new IllegalArgumentException("a key name of " + bytes + " bytes of UTF-8; allowed: 1.." + MAX_NAME_BYTES);
        }
    }
}
