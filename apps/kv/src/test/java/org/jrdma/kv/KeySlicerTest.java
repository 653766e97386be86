package org.jrdma.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class KeySlicerTest {
    @Test
    void evenRangesSplitTheUnsignedKeySpaceAsPsLiteDoes() {
        KeySlicer even = KeySlicer.evenRanges();
        assertEquals(0, even.serverOf(12345, 1));
        assertEquals(0, even.serverOf(0, 4));
        assertEquals(0, even.serverOf(Long.divideUnsigned(-1L, 4), 4)); // the last key of the first quarter
        assertEquals(1, even.serverOf(Long.divideUnsigned(-1L, 4) + 1, 4));
        assertEquals(2, even.serverOf(Long.MIN_VALUE, 4)); // 2^63: the start of the upper half
        assertEquals(3, even.serverOf(-1L, 4)); // the largest unsigned key
        assertEquals(2, even.serverOf(-1L, 3));
    }

    @Test
    void hashedSpreadsNeighbouringKeysOverEveryServer() {
        KeySlicer hashed = KeySlicer.hashed();
        int[] counts = new int[4];
        for (long key = 0; key < 4000; key++) {
            int server = hashed.serverOf(key, 4);
            assertTrue(server >= 0 && server < 4);
            counts[server]++;
        }
        for (int count : counts) {
            assertTrue(count > 800 && count < 1200, Arrays.toString(counts));
        }
        assertEquals(hashed.serverOf(77, 4), hashed.serverOf(77, 4), "the same key, the same server");
    }
}
