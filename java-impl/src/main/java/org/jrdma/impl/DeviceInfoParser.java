package org.jrdma.impl;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.jrdma.Gid;
import org.jrdma.GidType;
import org.jrdma.LinkLayer;
import org.jrdma.PortState;
import org.jrdma.RdmaDevice;
import org.jrdma.RdmaPort;

/** Parses the device snapshot text written by native/src/transports/verbs/device_info_format.cc. */
final class DeviceInfoParser {
    private DeviceInfoParser() {
    }

    static List<RdmaDevice> parse(String text) {
        List<RdmaDevice> devices = new ArrayList<>();
        String name = null;
        long guid = 0;
        List<RdmaPort> ports = new ArrayList<>();
        int[] port = null; // number, state, link layer, active mtu, max mtu, lid
        List<Gid> gids = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            String[] f = line.split(" ");
            switch (f[0]) {
                case "device":
                    expectFields(f, 3, line);
                    if (name != null) {
                        closePort(ports, port, gids);
                        port = null;
                        devices.add(new RdmaDevice(name, guid, ports));
                    }
                    name = f[1];
                    guid = Long.parseUnsignedLong(f[2], 16);
                    ports = new ArrayList<>();
                    break;
                case "port":
                    expectFields(f, 7, line);
                    if (name == null) {
                        throw new IllegalStateException("port before device in: " + line);
                    }
                    closePort(ports, port, gids);
                    port = new int[6];
                    for (int i = 0; i < 6; i++) {
                        port[i] = Integer.parseInt(f[i + 1]);
                    }
                    gids = new ArrayList<>();
                    break;
                case "gid":
                    expectFields(f, 4, line);
                    if (port == null) {
                        throw new IllegalStateException("gid before port in: " + line);
                    }
                    gids.add(new Gid(Integer.parseInt(f[1]), HexFormat.of().parseHex(f[2]),
                            GidType.values()[Integer.parseInt(f[3])]));
                    break;
                default:
                    throw new IllegalStateException("unknown record in device snapshot: " + line);
            }
        }
        if (name != null) {
            closePort(ports, port, gids);
            devices.add(new RdmaDevice(name, guid, ports));
        }
        return devices;
    }

    private static void closePort(List<RdmaPort> ports, int[] port, List<Gid> gids) {
        if (port != null) {
            ports.add(new RdmaPort(port[0], PortState.fromVerbs(port[1]), LinkLayer.fromVerbs(port[2]), port[3], port[4],
                    port[5], gids));
        }
    }

    private static void expectFields(String[] fields, int count, String line) {
        if (fields.length != count) {
            throw new IllegalStateException("malformed device snapshot line: " + line);
        }
    }
}
