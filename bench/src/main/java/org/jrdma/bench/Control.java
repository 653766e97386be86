package org.jrdma.bench;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.jrdma.RemoteBuffer;

/**
 * The first message on a benchmark channel: which test, size and iteration count, and the
 * client's buffer token. The server answers with its own token. Little-endian, 36 bytes.
 */
record Control(int test, int size, int iterations, RemoteBuffer clientBuffer) {
    static final int MAGIC = 0x42454E43; // "BENC"
    static final int BYTES = 16 + RemoteBuffer.BYTES;

    void writeTo(ByteBuffer out) {
        ByteBuffer le = out.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        le.putInt(MAGIC).putInt(test).putInt(size).putInt(iterations);
        clientBuffer.writeTo(le);
    }

    static Control readFrom(ByteBuffer in) {
        ByteBuffer le = in.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (le.remaining() < BYTES || le.getInt() != MAGIC) {
            throw new IllegalArgumentException("not a benchmark control message");
        }
        int test = le.getInt();
        int size = le.getInt();
        int iterations = le.getInt();
        if (test < 0 || test >= BenchOptions.ALL_TESTS.size() || size < 1 || iterations < 1) {
            throw new IllegalArgumentException("bad control message: test " + test + " size " + size + " iterations " + iterations);
        }
        return new Control(test, size, iterations, RemoteBuffer.fromBytes(le));
    }
}
