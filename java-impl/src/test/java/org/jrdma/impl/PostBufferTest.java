package org.jrdma.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class PostBufferTest {
    @BeforeAll
    static void loadLibrary() {
        NativeLoader.ensureLoaded();
    }

    @Test
    void recordsFollowTheNativeLayout() {
        PostBuffer posts = new PostBuffer(4, 1);
        posts.add(ChannelOp.Kind.FETCH_AND_ADD, 3, 0, 0x1122334455667788L, 8, 0xabcd, 0x0102030405060708L, 0x77, 0, 0, 42, 0);
        posts.add(ChannelOp.Kind.SEND, 2, 65535, 0x1000, 100, 5, 0, 0, 0, 99, 0, 0);
        ByteBuffer records = view(posts, 2);
        assertEquals(7, records.get(0)); // WorkRequestKind::kFetchAndAdd
        assertEquals(3, records.getInt(4));
        assertEquals(0x1122334455667788L, records.getLong(8));
        assertEquals(8, records.getInt(16));
        assertEquals(0xabcd, records.getInt(20));
        assertEquals(0x0102030405060708L, records.getLong(24));
        assertEquals(0x77, records.getInt(32));
        assertEquals(42, records.getLong(48));
        assertEquals(1, records.get(64)); // kSend
        assertEquals(65535, records.getShort(66) & 0xffff);
        assertEquals(99, records.getLong(64 + 40));
    }

    @Test
    void signalsEveryIntervalAndAlwaysTheLastOfABatch() {
        PostBuffer posts = new PostBuffer(16, 4);
        addSends(posts, 10);
        posts.markSignals();
        boolean[] expected = {false, false, false, true, false, false, false, true, false, true};
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], posts.signaled(i), "request " + i);
        }
        posts.clear();
        addSends(posts, 1); // a lone request must ask for a completion: nothing later would finish it
        posts.markSignals();
        assertTrue(posts.signaled(0));
        posts.clear();
        addSends(posts, 2);
        posts.markSignals();
        assertFalse(posts.signaled(0));
        assertTrue(posts.signaled(1));
    }

    @Test
    void neverHoldsMoreThanTheQueueDepth() {
        PostBuffer posts = new PostBuffer(2, 1);
        addSends(posts, 2);
        assertThrows(IllegalStateException.class, () -> addSends(posts, 1));
    }

    private static void addSends(PostBuffer posts, int n) {
        for (int i = 0; i < n; i++) {
            posts.add(ChannelOp.Kind.SEND, posts.count(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        }
    }

    /** The records as native code sees them (the buffer's memory, read through its address). */
    private static ByteBuffer view(PostBuffer posts, int records) {
        ByteBuffer copy = ByteBuffer.allocate(records * PostBuffer.RECORD_BYTES).order(ByteOrder.nativeOrder());
        for (int i = 0; i < copy.capacity(); i++) {
            copy.put(i, posts.byteAt(i));
        }
        return copy;
    }
}
