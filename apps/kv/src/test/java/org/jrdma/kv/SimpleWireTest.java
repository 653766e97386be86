package org.jrdma.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.jrdma.ProtocolException;
import org.junit.jupiter.api.Test;

/** SimpleApp's messages: what is encoded decodes the same; every malformed field is a ProtocolException. */
class SimpleWireTest {
    private static ByteBuffer encoded(byte type, int status, byte[] body) {
        ByteBuffer out = ByteBuffer.allocate(SimpleWire.HEADER + body.length);
        SimpleWire.encode(out, type, status, 42, 7L, body);
        return out;
    }

    @Test
    void whatIsEncodedDecodesTheSame() {
        SimpleWire.Message m = SimpleWire.decode(encoded(SimpleWire.RESPONSE, SimpleWire.FAILED, new byte[] {1, 2, 3}), 16);
        assertEquals(SimpleWire.RESPONSE, m.type());
        assertEquals(SimpleWire.FAILED, m.status());
        assertEquals(42, m.head());
        assertEquals(7L, m.id());
        assertArrayEquals(new byte[] {1, 2, 3}, m.body());
        assertEquals(0, SimpleWire.decode(encoded(SimpleWire.REQUEST, 0, new byte[0]), 0).body().length);
    }

    @Test
    void malformedMessagesAreRefused() {
        assertThrows(ProtocolException.class, () -> SimpleWire.decode(ByteBuffer.allocate(SimpleWire.HEADER - 1), 16),
                "shorter than the header");
        assertThrows(ProtocolException.class, () -> SimpleWire.decode(encoded((byte) 3, 0, new byte[0]), 16), "unknown type");
        assertThrows(ProtocolException.class, () -> SimpleWire.decode(encoded(SimpleWire.REQUEST, 1, new byte[0]), 16),
                "a request with a status");
        assertThrows(ProtocolException.class, () -> SimpleWire.decode(encoded(SimpleWire.RESPONSE, 2, new byte[0]), 16),
                "an unknown status");
        assertThrows(ProtocolException.class, () -> SimpleWire.decode(encoded(SimpleWire.REQUEST, 0, new byte[17]), 16),
                "a body above the bound");
        ByteBuffer reserved = encoded(SimpleWire.REQUEST, 0, new byte[0]);
        reserved.putShort(2, (short) 1);
        assertThrows(ProtocolException.class, () -> SimpleWire.decode(reserved, 16), "reserved bits set");
        for (int claimed : new int[] {2, 4, -1, Integer.MAX_VALUE}) {
            ByteBuffer lying = encoded(SimpleWire.REQUEST, 0, new byte[3]).order(ByteOrder.LITTLE_ENDIAN);
            lying.putInt(16, claimed);
            assertThrows(ProtocolException.class, () -> SimpleWire.decode(lying, 16), "a body length of " + claimed);
        }
    }
}
