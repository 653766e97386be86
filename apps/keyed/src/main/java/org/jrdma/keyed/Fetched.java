package org.jrdma.keyed;

import org.jrdma.RegisteredBuffer;

/**
 * A fetched value: {@code length} bytes at {@code offset} of {@code buffer} (the destination given to
 * {@link KeyedChannel#fetch}, or a buffer of the right size allocated for it when the destination was
 * too small and {@link KeyedOptions#retryTooSmall()} is on: then the caller owns it and closes it),
 * the producer's metadata, and whether the value is dead (no bytes, only metadata: TensorFlow's
 * {@code is_dead}).
 */
public record Fetched(TransferKey key, RegisteredBuffer buffer, int offset, int length, byte[] metadata, boolean dead) {
}
