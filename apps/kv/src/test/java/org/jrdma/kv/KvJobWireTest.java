package org.jrdma.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import org.jrdma.ProtocolException;
import org.junit.jupiter.api.Test;

/** The scheduler's messages read back as written; every malformed field a peer could send is refused. */
class KvJobWireTest {
    private static final InetSocketAddress V4 = new InetSocketAddress("10.1.2.3", 7000);
    private static final InetSocketAddress V6 = new InetSocketAddress("fe80::1", 65535);

    @Test
    void aRegistrationAndARosterCarryTheirAddresses() {
        ByteBuffer register = KvJobWire.register(KvRole.SERVER, 3, 2, V6);
        assertEquals(KvJobWire.REGISTER_SIZE, register.remaining());
        assertEquals(KvRole.SERVER, KvJobWire.role(register.getInt(4)));
        assertEquals(V6, KvJobWire.address(register, KvWire.HEADER + 8));
        assertNull(KvJobWire.address(KvJobWire.register(KvRole.WORKER, 3, 2, null), KvWire.HEADER + 8));

        ByteBuffer roster = KvJobWire.roster(1, 3, List.of(V4, V6));
        assertEquals(1, roster.getInt(4));
        assertEquals(List.of(V4, V6), KvJobWire.servers(roster, 2));
    }

    @Test
    void malformedFieldsAreProtocolViolations() {
        ByteBuffer roster = KvJobWire.roster(0, 1, List.of(V4, V6));
        assertThrows(ProtocolException.class, () -> KvJobWire.servers(roster, 3)); // length and count disagree
        assertThrows(ProtocolException.class, () -> KvJobWire.servers(roster, 1));
        for (int length : new int[] {1, 5, 15, 17, -1}) {
            ByteBuffer bad = KvJobWire.roster(0, 1, List.of(V4));
            bad.put(KvJobWire.ROSTER_FIXED + 2, (byte) length);
            assertThrows(ProtocolException.class, () -> KvJobWire.servers(bad, 1), "length " + length);
        }
        ByteBuffer trailing = KvJobWire.roster(0, 1, List.of(V4));
        trailing.put(KvJobWire.ROSTER_FIXED + 4 + 4, (byte) 1); // a byte after a 4-byte address
        assertThrows(ProtocolException.class, () -> KvJobWire.servers(trailing, 1));
        ByteBuffer missing = KvJobWire.roster(0, 1, List.of(V4));
        missing.put(KvJobWire.ROSTER_FIXED + 2, (byte) 0); // a server without an address
        assertThrows(ProtocolException.class, () -> KvJobWire.servers(missing, 1));

        assertThrows(ProtocolException.class, () -> KvJobWire.role(0));
        assertThrows(ProtocolException.class, () -> KvJobWire.role(3));
        assertThrows(ProtocolException.class, () -> KvJobWire.checkCounts(0, 1));
        assertThrows(ProtocolException.class, () -> KvJobWire.checkCounts(1, -1));
        assertThrows(ProtocolException.class, () -> KvJobWire.checkCounts(KvJobWire.MAX_NODES + 1, 1));
        assertThrows(ProtocolException.class,
                () -> KvJobWire.requireHeader(ByteBuffer.allocate(KvWire.HEADER - 1), "barrier", KvWire.HEADER, true));
        assertThrows(ProtocolException.class,
                () -> KvJobWire.requireHeader(ByteBuffer.allocate(KvWire.HEADER + 1), "barrier", KvWire.HEADER, true));
        ByteBuffer reserved = KvJobWire.barrier(KvJobWire.BARRIER, 0, KvGroup.ALL, 1);
        reserved.putShort(2, (short) 1);
        assertThrows(ProtocolException.class, () -> KvJobWire.requireHeader(reserved, "barrier", KvWire.HEADER, true));
        assertNull(KvGroup.of(0));
        assertNull(KvGroup.of(4));
    }
}
