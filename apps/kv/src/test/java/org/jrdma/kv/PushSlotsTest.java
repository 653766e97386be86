package org.jrdma.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import org.jrdma.ProtocolException;
import org.jrdma.RemoteBuffer;
import org.junit.jupiter.api.Test;

/** The worker's side of write slots: what a server may announce, and one push per slot at a time. */
class PushSlotsTest {
    private static ByteBuffer slot(long key, int id, int length) {
        ByteBuffer b = KvWire.le(ByteBuffer.allocate(KvWire.SLOT_SIZE));
        KvWire.header(b, KvWire.SLOT, 0, 1, 0);
        b.putLong(16, key).putInt(24, id).putInt(28, length);
        return b;
    }

    @Test
    void aSlotIsUsableOnceItsTokenArrivedAndCarriesOnePushAtATime() {
        PushSlots slots = new PushSlots();
        slots.announced(slot(42, 0, 4096));
        assertNull(slots.claim(42, 4096, 1), "no token yet");
        slots.token(new RemoteBuffer(0x1000, 4096, 7));
        assertNull(slots.claim(42, 100, 1), "a value of another length");
        PushSlots.Slot s = slots.claim(42, 4096, 5);
        assertNotNull(s);
        assertNull(slots.claim(42, 4096, 6), "busy with push 5");
        assertEquals(5, slots.acknowledged(0));
        assertNotNull(slots.claim(42, 4096, 6), "free again after its SLOT_ACK");
    }

    @Test
    void whatAServerMayNotSayIsAProtocolViolation() {
        PushSlots slots = new PushSlots();
        assertThrows(ProtocolException.class, () -> slots.announced(slot(1, 1, 64)), "ids start at 0");
        assertThrows(ProtocolException.class, () -> slots.announced(slot(1, 0, 0)), "an empty slot");
        assertThrows(ProtocolException.class, () -> slots.announced(ByteBuffer.allocate(16)), "too short");
        assertThrows(ProtocolException.class, () -> slots.token(new RemoteBuffer(0x1000, 64, 7)), "a token nobody announced");
        slots.announced(slot(1, 0, 64));
        assertThrows(ProtocolException.class, () -> slots.announced(slot(1, 1, 64)), "a second slot for a key");
        assertThrows(ProtocolException.class, () -> slots.token(new RemoteBuffer(0x1000, 63, 7)), "a token shorter than its slot");
        assertThrows(ProtocolException.class, () -> slots.acknowledged(0), "an ACK for a slot carrying no push");
        assertThrows(ProtocolException.class, () -> slots.acknowledged(-1), "an id never given");
    }
}
