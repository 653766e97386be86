package org.jrdma.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.jrdma.ConfigurationException;
import org.jrdma.Gid;
import org.jrdma.GidType;
import org.jrdma.LinkLayer;
import org.jrdma.PortState;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaDevice;
import org.jrdma.RdmaPort;
import org.junit.jupiter.api.Test;

class DeviceSelectionTest {
    private static Gid gid(int index, GidType type, int... bytes) {
        byte[] raw = new byte[16];
        for (int i = 0; i < bytes.length; i++) {
            raw[i] = (byte) bytes[i];
        }
        return new Gid(index, raw, type);
    }

    private static Gid linkLocal(int index) {
        return gid(index, GidType.ROCE_V2, 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 1, 2, 3, 0xff, 0xfe, 4, 5, 6);
    }

    private static Gid ipv4(int index, GidType type, int last) {
        return gid(index, type, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 77, 0, last);
    }

    private static RdmaPort roce(int number, PortState state, int activeMtu, Gid... gids) {
        return new RdmaPort(number, state, LinkLayer.ETHERNET, activeMtu, 4096, 0, List.of(gids));
    }

    private static final RdmaDevice RXE0 = new RdmaDevice("rxe0", 1,
            List.of(roce(1, PortState.ACTIVE, 1024, linkLocal(0), ipv4(1, GidType.ROCE_V2, 1))));
    private static final RdmaDevice RXE1 = new RdmaDevice("rxe1", 2,
            List.of(roce(1, PortState.ACTIVE, 1024, linkLocal(0), ipv4(1, GidType.ROCE_V2, 2))));
    private static final RdmaDevice DOWN = new RdmaDevice("mlx5_0", 3,
            List.of(new RdmaPort(1, PortState.DOWN, LinkLayer.INFINIBAND, 4096, 4096, 0, List.of()),
                    new RdmaPort(2, PortState.ACTIVE, LinkLayer.INFINIBAND, 2048, 4096, 7, List.of(gid(0, GidType.IB, 0xfe, 0x80)))));

    private static DeviceSelection select(Map<String, String> env, RdmaDevice... devices) {
        return DeviceSelection.select(RdmaConfig.fromEnvironment(env), List.of(devices));
    }

    private static String failure(Map<String, String> env, RdmaDevice... devices) {
        return assertThrows(ConfigurationException.class, () -> select(env, devices)).getMessage();
    }

    @Test
    void theOnlyDeviceWithAnActivePortIsChosen() {
        DeviceSelection s = select(Map.of(), RXE0);
        assertEquals("rxe0", s.device().name());
        assertEquals(1, s.port().number());
        assertEquals(1, s.gidIndex(), "the routable RoCE v2 GID, not the link-local one");
        assertEquals(1024, s.mtu(), "the port's active MTU");
    }

    @Test
    void severalActiveDevicesNeedRdmaDevice() {
        String message = failure(Map.of(), RXE0, RXE1);
        assertTrue(message.contains("RDMA_DEVICE is required: 2 devices have an active port: rxe0, rxe1"), message);
        assertEquals("rxe1", select(Map.of("RDMA_DEVICE", "rxe1"), RXE0, RXE1).device().name());
    }

    @Test
    void noDeviceIsAClearError() {
        assertTrue(failure(Map.of()).contains("no RDMA device with an active port (devices here: none)"));
    }

    @Test
    void unknownDeviceListsTheDevices() {
        String message = failure(Map.of("RDMA_DEVICE", "mlx9"), RXE0, RXE1);
        assertTrue(message.contains("RDMA_DEVICE=mlx9 does not exist; devices here: rxe0, rxe1"), message);
    }

    @Test
    void firstActivePortAndExplicitPorts() {
        DeviceSelection s = select(Map.of("RDMA_DEVICE", "mlx5_0"), DOWN);
        assertEquals(2, s.port().number());
        assertEquals(0, s.gidIndex(), "InfiniBand uses GID 0");
        assertEquals(2048, s.mtu());
        String down = failure(Map.of("RDMA_DEVICE", "mlx5_0", "RDMA_DEVICE_PORT", "1"), DOWN);
        assertTrue(down.contains("RDMA_DEVICE_PORT=1 of mlx5_0 is DOWN, not ACTIVE"), down);
        String missing = failure(Map.of("RDMA_DEVICE", "mlx5_0", "RDMA_DEVICE_PORT", "3"), DOWN);
        assertTrue(missing.contains("RDMA_DEVICE_PORT=3 does not exist on mlx5_0"), missing);
    }

    @Test
    void ambiguousRoceGidsNeedRdmaGidIndex() {
        RdmaDevice twoAddresses = new RdmaDevice("rxe0", 1, List.of(roce(1, PortState.ACTIVE, 1024, linkLocal(0),
                ipv4(1, GidType.ROCE_V2, 1), ipv4(2, GidType.ROCE_V2, 9), ipv4(3, GidType.ROCE_V1, 9))));
        String message = failure(Map.of(), twoAddresses);
        assertTrue(message.startsWith("RDMA_GID_INDEX is required: rxe0 port 1 has 2 routable RoCE v2 GIDs"), message);
        assertTrue(message.contains("2=ROCE_V2/10.77.0.9"), message);
        assertEquals(2, select(Map.of("RDMA_GID_INDEX", "2"), twoAddresses).gidIndex());
        RdmaDevice onlyV1 = new RdmaDevice("rxe0", 1, List.of(roce(1, PortState.ACTIVE, 1024, ipv4(0, GidType.ROCE_V1, 1))));
        assertTrue(failure(Map.of(), onlyV1).contains("has 0 routable RoCE v2 GIDs"));
    }

    @Test
    void gidIndexMustExist() {
        String message = failure(Map.of("RDMA_GID_INDEX", "5"), RXE0);
        assertTrue(message.startsWith("RDMA_GID_INDEX=5 is not a valid GID of rxe0 port 1; valid: 0=ROCE_V2"), message);
    }

    @Test
    void mtuNotAboveTheActiveMtu() {
        assertEquals(512, select(Map.of("RDMA_MTU", "512"), RXE0).mtu());
        String message = failure(Map.of("RDMA_MTU", "4096"), RXE0);
        assertTrue(message.contains("RDMA_MTU=4096 is above the active MTU of port 1 (1024); allowed: 256..1024"), message);
    }

    @Test
    void poolSizeClasses() {
        assertEquals(4096, BufferPool.blockSize(1));
        assertEquals(4096, BufferPool.blockSize(4096));
        assertEquals(8192, BufferPool.blockSize(4097));
        assertEquals(1 << 20, BufferPool.blockSize(1 << 20));
        assertEquals(-1, BufferPool.blockSize((1 << 20) + 1));
    }
}
