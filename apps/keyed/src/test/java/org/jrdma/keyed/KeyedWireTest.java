package org.jrdma.keyed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.jrdma.ProtocolException;
import org.jrdma.RemoteBuffer;
import org.junit.jupiter.api.Test;

/** The keyed messages round-trip, and every malformed field from a peer is a ProtocolException. */
class KeyedWireTest {
    private static ByteBuffer buffer() {
        return ByteBuffer.allocate(2048).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static ByteBuffer message(ByteBuffer b, int length) {
        return b.duplicate().order(ByteOrder.LITTLE_ENDIAN).limit(length).slice();
    }

    @Test
    void fetchRoundTrips() {
        ByteBuffer b = buffer();
        TransferKey key = new TransferKey("layer/ü", 42);
        int n = KeyedWire.encodeFetch(b, 7, key, new RemoteBuffer(0x1000, 4096, 0xabc), false);
        KeyedWire.Fetch f = KeyedWire.decodeFetch(message(b, n));
        assertEquals(7, f.id());
        assertEquals(key, f.key());
        assertEquals(new RemoteBuffer(0x1000, 4096, 0xabc), f.destination());
    }

    @Test
    void repliesRoundTrip() {
        ByteBuffer b = buffer();
        int n = KeyedWire.encodeDone(b, 9, 123, new byte[] {1, 2, 3}, true, -1);
        KeyedWire.Reply r = KeyedWire.decodeReply(message(b, n));
        assertEquals(KeyedWire.DONE, r.type());
        assertEquals(9, r.id());
        assertEquals(123, r.length());
        assertArrayEquals(new byte[] {1, 2, 3}, r.metadata());
        assertTrue(r.dead());
        n = KeyedWire.encodeShort(b, KeyedWire.TOO_SMALL, 10, 65536);
        assertEquals(65536, KeyedWire.decodeReply(message(b, n)).length());
        n = KeyedWire.encodeShort(b, KeyedWire.CANCELLED, 11, KeyedWire.CANCELLED_CLEANUP);
        assertEquals(KeyedWire.CANCELLED_CLEANUP, KeyedWire.decodeReply(message(b, n)).reason());
    }

    @Test
    void malformedFetchesAreProtocolErrors() {
        ByteBuffer b = buffer();
        int n = KeyedWire.encodeFetch(b, 1, new TransferKey("abc", 1), new RemoteBuffer(0, 8, 1), false);
        assertThrows(ProtocolException.class, () -> KeyedWire.decodeFetch(message(b, 39)), "shorter than the header");
        assertThrows(ProtocolException.class, () -> KeyedWire.decodeFetch(message(b, n - 1)), "name cut");
        b.putShort(2, (short) 2000);
        assertThrows(ProtocolException.class, () -> KeyedWire.decodeFetch(message(b, n)), "name length beyond the limit");
        b.putShort(2, (short) 3).put(40, (byte) 0xff);
        assertThrows(ProtocolException.class, () -> KeyedWire.decodeFetch(message(b, n)), "not UTF-8");
        b.put(40, (byte) 'a').put(1, (byte) 2);
        assertThrows(ProtocolException.class, () -> KeyedWire.decodeFetch(message(b, n)), "reserved flags");
    }

    @Test
    void malformedRepliesAreProtocolErrors() {
        ByteBuffer b = buffer();
        int n = KeyedWire.encodeDone(b, 1, 10, new byte[4], false, -1);
        b.putShort(2, (short) 3000);
        assertThrows(ProtocolException.class, () -> KeyedWire.decodeReply(message(b, n)), "metadata beyond the limit");
        b.putShort(2, (short) 4).put(1, (byte) 4);
        assertThrows(ProtocolException.class, () -> KeyedWire.decodeReply(message(b, n)), "unknown flag");
        b.put(1, (byte) 2);
        assertThrows(ProtocolException.class, () -> KeyedWire.decodeReply(message(b, n)), "a checksum flag without one");
        b.put(1, (byte) 0).put(0, (byte) 9);
        assertThrows(ProtocolException.class, () -> KeyedWire.decodeReply(message(b, n)), "unknown type");
        int c = KeyedWire.encodeShort(b, KeyedWire.CANCELLED, 1, 7);
        assertThrows(ProtocolException.class, () -> KeyedWire.decodeReply(message(b, c)), "unknown reason");
    }

    @Test
    void randomBytesNeverEscapeAsAnythingButProtocolException() {
        Random random = new Random(1);
        for (int i = 0; i < 100_000; i++) {
            byte[] bytes = new byte[random.nextInt(80)];
            random.nextBytes(bytes);
            if (bytes.length > 0 && random.nextBoolean()) {
                bytes[0] = (byte) (1 + random.nextInt(5));
            }
            ByteBuffer m = ByteBuffer.wrap(bytes);
            try {
                if (bytes.length > 0 && bytes[0] == KeyedWire.FETCH) {
                    KeyedWire.decodeFetch(m);
                } else {
                    KeyedWire.decodeReply(m);
                }
            } catch (ProtocolException expected) {
                // the only failure a peer's bytes may cause
            }
        }
    }

    @Test
    void anErrorRoundTripsAndAMalformedOneIsRefused() {
        ByteBuffer b = buffer();
        byte[] text = "out of memory on the producer".getBytes(StandardCharsets.UTF_8);
        int n = KeyedWire.encodeError(b, 11, text);
        KeyedWire.Reply r = KeyedWire.decodeReply(message(b, n));
        assertEquals(KeyedWire.ERROR, r.type());
        assertEquals(11, r.id());
        assertArrayEquals(text, r.metadata());
        b.putShort(2, (short) (text.length + 1)); // the text claims a byte more than the message has
        assertThrows(ProtocolException.class, () -> KeyedWire.decodeReply(message(b, n)));
        b.putShort(2, (short) 2000); // above the 1024-byte bound
        assertThrows(ProtocolException.class, () -> KeyedWire.decodeReply(message(b, 16 + 2000)));
        b.putShort(2, (short) text.length).put(1, (byte) 1); // a flag set
        assertThrows(ProtocolException.class, () -> KeyedWire.decodeReply(message(b, n)));
    }

    @Test
    void aChecksumRequestAndAChecksumRoundTrip() {
        ByteBuffer b = buffer();
        int n = KeyedWire.encodeFetch(b, 3, new TransferKey("w", 1), new RemoteBuffer(0x2000, 64, 5), true);
        assertTrue(KeyedWire.decodeFetch(message(b, n)).checksum());
        ByteBuffer value = ByteBuffer.wrap("123456789".getBytes(StandardCharsets.US_ASCII));
        long crc = KeyedWire.checksum(value, 0, 9);
        assertEquals(0xE3069283L, crc, "CRC-32C's check value");
        n = KeyedWire.encodeDone(b, 3, 9, new byte[] {7}, false, crc);
        KeyedWire.Reply r = KeyedWire.decodeReply(message(b, n));
        assertEquals(crc, r.checksum());
        assertArrayEquals(new byte[] {7}, r.metadata());
        n = KeyedWire.encodeDone(b, 3, 9, new byte[0], false, -1);
        assertEquals(-1, KeyedWire.decodeReply(message(b, n)).checksum());
    }
}
