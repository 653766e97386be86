package org.jrdma.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class MergeFunctionTest {
    private static ByteBuffer floats(int n, float first, float step) {
        ByteBuffer b = ByteBuffer.allocateDirect(4 * n).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            b.putFloat(4 * i, first + step * i);
        }
        return b;
    }

    @Test
    void float32SumAddsEveryElementAcrossChunkBoundaries() {
        for (int n : new int[] {1, 7, 16 * 1024, 16 * 1024 + 1, 100_003}) {
            ByteBuffer stored = floats(n, 1, 1);
            MergeFunction.float32Sum().merge(1, stored, floats(n, 10, 2));
            for (int i = 0; i < n; i++) {
                assertEquals(11 + 3f * i, stored.getFloat(4 * i), "element " + i + " of " + n);
            }
        }
    }

    @Test
    void float32SumLeavesBytesAroundTheViewsAlone() {
        ByteBuffer stored = floats(10, 1, 0);
        MergeFunction.float32Sum().merge(1, stored.duplicate().position(8).limit(24).slice(), floats(4, 5, 0));
        assertEquals(1f, stored.getFloat(4));
        assertEquals(6f, stored.getFloat(8));
        assertEquals(6f, stored.getFloat(20));
        assertEquals(1f, stored.getFloat(24));
    }

    @Test
    void float32SumRefusesALengthThatIsNoMultipleOfFour() {
        assertThrows(IllegalArgumentException.class,
                () -> MergeFunction.float32Sum().merge(3, ByteBuffer.allocate(6), ByteBuffer.allocate(6)));
    }

    @Test
    void overwriteReplacesTheStoredValue() {
        ByteBuffer stored = floats(3, 1, 1);
        MergeFunction.overwrite().merge(1, stored, floats(3, 9, 0));
        assertEquals(9f, stored.getFloat(8));
    }
}
