package org.jrdma.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.jrdma.GidType;
import org.jrdma.LinkLayer;
import org.jrdma.PortState;
import org.jrdma.RdmaDevice;
import org.jrdma.RdmaPort;
import org.junit.jupiter.api.Test;

class DeviceInfoParserTest {
    @Test
    void parsesDevicesPortsAndGids() {
        List<RdmaDevice> devices = DeviceInfoParser.parse(
                "device rxe0 0211223344556677\n"
                        + "port 1 4 2 1024 4096 0\n"
                        + "gid 0 fe800000000000000211223344556677 2\n"
                        + "gid 1 00000000000000000000ffff0a4d0001 2\n"
                        + "device mlx5_0 00000000000000ff\n"
                        + "port 1 1 1 0 4096 7\n");
        assertEquals(2, devices.size());
        RdmaDevice rxe = devices.get(0);
        assertEquals("rxe0", rxe.name());
        assertEquals("0211:2233:4455:6677", rxe.nodeGuidText());
        RdmaPort port = rxe.ports().get(0);
        assertEquals(PortState.ACTIVE, port.state());
        assertEquals(LinkLayer.ETHERNET, port.linkLayer());
        assertEquals(1024, port.activeMtu());
        assertEquals(2, port.gids().size());
        assertEquals(GidType.ROCE_V2, port.gids().get(1).type());
        assertEquals("10.77.0.1", port.gids().get(1).ip().orElseThrow().getHostAddress());
        assertEquals("0000:0000:0000:0000:0000:ffff:0a4d:0001", port.gids().get(1).toString());
        RdmaPort ib = devices.get(1).ports().get(0);
        assertEquals(PortState.DOWN, ib.state());
        assertEquals(LinkLayer.INFINIBAND, ib.linkLayer());
        assertEquals(7, ib.lid());
        assertTrue(ib.gids().isEmpty());
    }

    @Test
    void emptyTextIsNoDevice() {
        assertTrue(DeviceInfoParser.parse("").isEmpty());
    }

    @Test
    void malformedTextIsRejected() {
        assertThrows(IllegalStateException.class, () -> DeviceInfoParser.parse("port 1 4 2 1024 4096 0\n"));
        assertThrows(IllegalStateException.class, () -> DeviceInfoParser.parse("device rxe0\n"));
        assertThrows(IllegalStateException.class, () -> DeviceInfoParser.parse("bogus\n"));
    }
}
