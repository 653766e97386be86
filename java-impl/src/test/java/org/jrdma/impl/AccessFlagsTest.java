package org.jrdma.impl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.jrdma.Access;
import org.junit.jupiter.api.Test;

/** Rights are granted only when named: an unknown (null) right is refused, never widened to another. */
class AccessFlagsTest {
    @Test
    void eachRightMapsToItsOwnBitOnTheWireAndBack() {
        assertEquals(1, AccessFlags.wire(Access.REMOTE_READ));
        assertEquals(2, AccessFlags.wire(Access.REMOTE_WRITE));
        assertEquals(4, AccessFlags.wire(Access.REMOTE_ATOMIC));
        assertEquals(3, AccessFlags.wire(Access.REMOTE_READ, Access.REMOTE_WRITE));
        assertEquals(0, AccessFlags.wire());
        assertArrayEquals(new Access[] {Access.REMOTE_WRITE}, AccessFlags.fromWire(2));
    }

    @Test
    void aNullRightIsRefusedNotGrantedAsAtomic() {
        NullPointerException wire = assertThrows(NullPointerException.class, () -> AccessFlags.wire((Access) null));
        assertTrue(wire.getMessage().contains("REMOTE_ATOMIC"), wire.getMessage());
        assertThrows(NullPointerException.class, () -> AccessFlags.wire(Access.REMOTE_READ, null));
        assertThrows(NullPointerException.class, () -> AccessFlags.mask((Access) null));
    }
}
