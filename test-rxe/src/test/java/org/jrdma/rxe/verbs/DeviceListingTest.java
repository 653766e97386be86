package org.jrdma.rxe.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jrdma.Gid;
import org.jrdma.GidType;
import org.jrdma.Rdma;
import org.jrdma.RdmaDevice;
import org.jrdma.RdmaPort;
import org.jrdma.rxe.contract.RxeEnvironment;
import org.junit.jupiter.api.Test;

/** Rdma.devices() agrees with sysfs on names, GUIDs, port state, link layer and the GID table with types. */
class DeviceListingTest {
    @Test
    void devicesMatchSysfs() {
        List<String> sysfsNames = RxeEnvironment.requireDevices();
        List<RdmaDevice> devices = Rdma.devices();
        assertEquals(sysfsNames, devices.stream().map(RdmaDevice::name).sorted().collect(Collectors.toList()));
        for (RdmaDevice device : devices) {
            Path dir = RxeEnvironment.SYSFS.resolve(device.name());
            assertEquals(RxeEnvironment.readSysfs(dir.resolve("node_guid")), device.nodeGuidText(), device.name());
            for (RdmaPort port : device.ports()) {
                Path portDir = dir.resolve("ports/" + port.number());
                String state = RxeEnvironment.readSysfs(portDir.resolve("state")); // "4: ACTIVE"
                assertEquals(state.substring(state.indexOf(' ') + 1), port.state().name(), device.name());
                assertEquals(RxeEnvironment.readSysfs(portDir.resolve("link_layer")).toUpperCase(), port.linkLayer().name());
                assertTrue(port.gids().size() >= 2, "rxe has a link-local and an IPv4 GID: " + port.gids());
                for (Gid gid : port.gids()) {
                    assertEquals(RxeEnvironment.readSysfs(portDir.resolve("gids/" + gid.index())), gid.toString());
                    String type = RxeEnvironment.readSysfs(portDir.resolve("gid_attrs/types/" + gid.index()));
                    assertEquals(type, sysfsName(gid.type()), "type of GID " + gid.index());
                }
                // Every valid GID in sysfs (it has a type) is listed.
                long sysfsValid = IntStream.range(0, 16)
                        .filter(i -> Files.exists(portDir.resolve("gid_attrs/types/" + i)))
                        .filter(i -> {
                            try {
                                return !Files.readString(portDir.resolve("gid_attrs/types/" + i)).isBlank();
                            } catch (IOException e) {
                                return false; // reading an unused entry fails with EINVAL
                            }
                        }).count();
                assertEquals(sysfsValid, port.gids().size(), "valid GIDs of " + device.name());
            }
        }
    }

    private static String sysfsName(GidType type) {
        switch (type) {
            case ROCE_V2: return "RoCE v2";
            case ROCE_V1: return "IB/RoCE v1";
            default: return "IB/RoCE v1";
        }
    }
}
