package org.jrdma.impl;

import java.net.InetAddress;
import java.util.List;
import java.util.stream.Collectors;
import org.jrdma.ConfigurationException;
import org.jrdma.Gid;
import org.jrdma.GidType;
import org.jrdma.LinkLayer;
import org.jrdma.PortState;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaDevice;
import org.jrdma.RdmaPort;

/**
 * Applies the device selection rules of TensorFlow's verbs transport to a device snapshot, without
 * its aborts: every ambiguity or violation is a {@link ConfigurationException} naming the variable.
 *
 * @param device   the chosen device
 * @param port     the chosen port
 * @param gidIndex the GID index used as the source GID
 * @param mtu      the path MTU in bytes
 */
record DeviceSelection(RdmaDevice device, RdmaPort port, int gidIndex, int mtu) {

    static DeviceSelection select(RdmaConfig config, List<RdmaDevice> devices) {
        RdmaDevice device = chooseDevice(config, devices);
        RdmaPort port = choosePort(config, device);
        return new DeviceSelection(device, port, chooseGid(config, device, port), chooseMtu(config, port));
    }

    private static RdmaDevice chooseDevice(RdmaConfig config, List<RdmaDevice> devices) {
        if (config.device() != null) {
            return devices.stream().filter(d -> d.name().equals(config.device())).findFirst()
                    .orElseThrow(() -> new ConfigurationException("RDMA_DEVICE=" + config.device()
                            + " does not exist; devices here: " + names(devices)));
        }
        List<RdmaDevice> active = devices.stream().filter(d -> d.ports().stream().anyMatch(DeviceSelection::isActive))
                .collect(Collectors.toList());
        if (active.size() == 1) {
            return active.get(0);
        }
        if (active.isEmpty()) {
            throw new ConfigurationException("no RDMA device with an active port (devices here: " + names(devices)
                    + "); set RDMA_DEVICE to use a device whose port is not active yet");
        }
        throw new ConfigurationException("RDMA_DEVICE is required: " + active.size()
                + " devices have an active port: " + names(active));
    }

    private static RdmaPort choosePort(RdmaConfig config, RdmaDevice device) {
        if (config.port() != 0) {
            RdmaPort port = device.ports().stream().filter(p -> p.number() == config.port()).findFirst()
                    .orElseThrow(() -> new ConfigurationException("RDMA_DEVICE_PORT=" + config.port() + " does not exist on "
                            + device.name() + "; its ports: 1.." + device.ports().size()));
            if (!isActive(port)) {
                throw new ConfigurationException("RDMA_DEVICE_PORT=" + config.port() + " of " + device.name() + " is "
                        + port.state() + ", not ACTIVE");
            }
            return port;
        }
        return device.ports().stream().filter(DeviceSelection::isActive).findFirst()
                .orElseThrow(() -> new ConfigurationException("RDMA_DEVICE=" + device.name() + " has no active port (states: "
                        + device.ports().stream().map(p -> p.number() + ":" + p.state()).collect(Collectors.joining(", "))
                        + ")"));
    }

    private static int chooseGid(RdmaConfig config, RdmaDevice device, RdmaPort port) {
        String where = device.name() + " port " + port.number();
        if (config.gidIndex() >= 0) {
            if (port.gids().stream().noneMatch(g -> g.index() == config.gidIndex())) {
                throw new ConfigurationException("RDMA_GID_INDEX=" + config.gidIndex() + " is not a valid GID of " + where
                        + "; valid: " + describe(port.gids()));
            }
            return config.gidIndex();
        }
        if (port.linkLayer() != LinkLayer.ETHERNET) {
            return 0; // InfiniBand: the port GID
        }
        // RoCE: the RoCE v2 GID that carries a routable address. The link-local fe80:: GID every
        // RoCE port also has is not counted: it cannot reach another subnet and would make every
        // single-address port ambiguous.
        List<Gid> candidates = port.gids().stream().filter(g -> g.type() == GidType.ROCE_V2 && !isLinkLocal(g))
                .collect(Collectors.toList());
        if (candidates.size() == 1) {
            return candidates.get(0).index();
        }
        throw new ConfigurationException("RDMA_GID_INDEX is required: " + where + " has " + candidates.size()
                + " routable RoCE v2 GIDs; its GIDs: " + describe(port.gids()));
    }

    private static int chooseMtu(RdmaConfig config, RdmaPort port) {
        if (config.mtu() == 0) {
            return port.activeMtu() > 0 ? port.activeMtu() : 1024;
        }
        if (port.activeMtu() > 0 && config.mtu() > port.activeMtu()) {
            throw new ConfigurationException("RDMA_MTU=" + config.mtu() + " is above the active MTU of port " + port.number()
                    + " (" + port.activeMtu() + "); allowed: 256.." + port.activeMtu());
        }
        return config.mtu();
    }

    private static boolean isActive(RdmaPort port) {
        return port.state() == PortState.ACTIVE;
    }

    /** {@return the address of the chosen GID when it is of {@code remote}'s family (IPv4 or IPv6), else null} */
    InetAddress sourceFor(InetAddress remote) {
        return port.gids().stream().filter(g -> g.index() == gidIndex).findFirst().flatMap(Gid::ip)
                .filter(ip -> ip.getClass() == remote.getClass()).orElse(null);
    }

    private static boolean isLinkLocal(Gid gid) {
        byte[] raw = gid.raw();
        return (raw[0] & 0xff) == 0xfe && (raw[1] & 0xc0) == 0x80;
    }

    private static String names(List<RdmaDevice> devices) {
        return devices.isEmpty() ? "none" : devices.stream().map(RdmaDevice::name).collect(Collectors.joining(", "));
    }

    private static String describe(List<Gid> gids) {
        return gids.isEmpty() ? "none" : gids.stream()
                .map(g -> g.index() + "=" + g.type() + g.ip().map(ip -> "/" + ip.getHostAddress()).orElse(""))
                .collect(Collectors.joining(", "));
    }
}
