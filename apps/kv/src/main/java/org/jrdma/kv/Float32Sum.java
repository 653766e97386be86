package org.jrdma.kv;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;

/**
 * {@link MergeFunction#float32Sum()}: sums in chunks copied to float arrays (bulk copies are memcpy;
 * an array loop is what the JIT vectorizes), not element by element through the direct buffers' views,
 * which cost several times more per element — the merge is on the server's event-loop thread and
 * bounds how fast it takes pushes.
 */
final class Float32Sum implements CheckedMerge {
    static final Float32Sum INSTANCE = new Float32Sum();
    private static final int CHUNK = 16 * 1024;
    private static final ThreadLocal<float[][]> SCRATCH = ThreadLocal.withInitial(() -> new float[2][CHUNK]);

    private Float32Sum() {
    }

    @Override
    public void check(long key, int length) {
        if (length % 4 != 0) {
            throw new IllegalArgumentException("a float32 value of " + length + " bytes (key " + key + ")");
        }
    }

    @Override
    public void merge(long key, ByteBuffer stored, ByteBuffer pushed) {
        check(key, stored.remaining());
        FloatBuffer into = stored.duplicate().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
        FloatBuffer from = pushed.duplicate().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
        float[][] scratch = SCRATCH.get();
        float[] sum = scratch[0];
        float[] add = scratch[1];
        for (int at = 0; at < into.remaining(); at += CHUNK) {
            int n = Math.min(CHUNK, into.remaining() - at);
            into.get(at, sum, 0, n);
            from.get(at, add, 0, n);
            for (int i = 0; i < n; i++) {
                sum[i] += add[i];
            }
            into.put(at, sum, 0, n);
        }
    }
}
