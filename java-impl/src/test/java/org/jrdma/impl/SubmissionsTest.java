package org.jrdma.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class SubmissionsTest {
    @BeforeAll
    static void loadLibrary() {
        NativeLoader.ensureLoaded();
    }

    @Test
    void recordsCarryTheOperationAtTheNamedOffsets() {
        Submissions submissions = new Submissions(2);
        ChannelOp op = new ChannelOp(ChannelOp.Kind.FETCH_AND_ADD, null, 0, 8, 0x0102030405060708L, 0x77, 9, 42, 43);
        op.seq = 1234567890123L;
        submissions.addOperation(op, 0x1122334455667788L, 0xabcd);
        submissions.addRelease(17);
        ByteBuffer records = view(submissions);
        assertEquals(7, records.get(Submissions.KIND_OFFSET)); // OpKind::kFetchAndAdd
        assertEquals(0x1122334455667788L, records.getLong(Submissions.LOCAL_ADDRESS_OFFSET));
        assertEquals(8, records.getInt(Submissions.LENGTH_OFFSET));
        assertEquals(0xabcd, records.getInt(Submissions.LKEY_OFFSET));
        assertEquals(0x0102030405060708L, records.getLong(Submissions.REMOTE_ADDRESS_OFFSET));
        assertEquals(0x77, records.getInt(Submissions.RKEY_OFFSET));
        assertEquals(9, records.getInt(Submissions.IMMEDIATE_OFFSET));
        assertEquals(1234567890123L, records.getLong(Submissions.SEQ_OFFSET));
        assertEquals(42, records.getLong(Submissions.COMPARE_ADD_OFFSET));
        assertEquals(43, records.getLong(Submissions.SWAP_OFFSET));
        int second = Submissions.RECORD_BYTES;
        assertEquals(Submissions.RELEASE_RECEIVE, records.get(second + Submissions.KIND_OFFSET));
        assertEquals(17, records.getInt(second + Submissions.RECEIVE_SLOT_OFFSET));
        assertTrue(submissions.isFull());
        submissions.clear();
        assertFalse(submissions.isFull());
        assertEquals(0, submissions.count());
    }

    private static ByteBuffer view(Submissions submissions) {
        byte[] bytes = new byte[submissions.count() * Submissions.RECORD_BYTES];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = submissions.byteAt(i);
        }
        return ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
    }
}
