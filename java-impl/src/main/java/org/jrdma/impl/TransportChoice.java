package org.jrdma.impl;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.function.Supplier;
import org.jrdma.ConfigurationException;
import org.jrdma.LinkLayer;
import org.jrdma.PortState;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaDevice;
import org.jrdma.RdmaPort;
import org.jrdma.Transport;

/**
 * Which transport a context opens with, and over verbs which device: {@link Transport#AUTO} takes
 * verbs when a device has an active port (or the configuration names a device), else TCP — also
 * when rdma-core's libraries are not installed. An explicit {@link Transport#VERBS} fails with the
 * reason instead.
 *
 * @param transport {@link Transport#VERBS} or {@link Transport#TCP}
 * @param selection the device, port, GID and MTU (over TCP: {@link #TCP_DEVICE}, none applies)
 */
record TransportChoice(Transport transport, DeviceSelection selection) {
    private static final System.Logger LOG = System.getLogger("org.jrdma");

    /** What a TCP context reports as its device: one active Ethernet port, no GIDs, MTU 0. */
    static final RdmaDevice TCP_DEVICE = new RdmaDevice("tcp", 0,
            List.of(new RdmaPort(1, PortState.ACTIVE, LinkLayer.ETHERNET, 0, 0, 0, List.of())));

    static TransportChoice choose(RdmaConfig config, Supplier<List<RdmaDevice>> devices) {
        switch (config.transport()) {
            case TCP:
                return tcp();
            case VERBS:
                return new TransportChoice(Transport.VERBS, DeviceSelection.select(config, devices.get()));
            default:
                return automatic(config, devices);
        }
    }

    private static TransportChoice automatic(RdmaConfig config, Supplier<List<RdmaDevice>> devices) {
        List<RdmaDevice> found;
        try {
            found = devices.get();
        } catch (ConfigurationException noVerbs) {
            if (config.device() != null) {
                throw noVerbs;
            }
            LOG.log(Level.DEBUG, "transport auto: TCP, RDMA is not usable here: {0}", noVerbs.getMessage());
            return tcp();
        }
        boolean anyActive = found.stream().flatMap(d -> d.ports().stream()).anyMatch(p -> p.state() == PortState.ACTIVE);
        if (config.device() == null && !anyActive) {
            LOG.log(Level.DEBUG, "transport auto: TCP, no RDMA device with an active port ({0} devices)", found.size());
            return tcp();
        }
        return new TransportChoice(Transport.VERBS, DeviceSelection.select(config, found));
    }

    private static TransportChoice tcp() {
        RdmaPort port = TCP_DEVICE.ports().get(0);
        return new TransportChoice(Transport.TCP, new DeviceSelection(TCP_DEVICE, port, 0, 0));
    }
}
