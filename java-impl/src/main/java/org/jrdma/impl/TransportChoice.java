package org.jrdma.impl;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * verbs when a device has an active port (or the configuration names a device), else TCP with shared
 * memory for peers on the same host — also when rdma-core's libraries are not installed. An explicit
 * {@link Transport#VERBS} fails with the reason instead.
 *
 * @param opened    what the native context is opened with (native/src/jni/context_handle.h: AUTO is a
 *                  TCP context that shares memory with same-host peers that can)
 * @param selection the device, port, GID and MTU (over TCP and shared memory a stand-in, none applies)
 */
record TransportChoice(Transport opened, DeviceSelection selection) {
    private static final System.Logger LOG = System.getLogger("org.jrdma.transport");
    private static final AtomicBoolean FALLBACK_SAID = new AtomicBoolean();

    /** What a TCP or shared-memory context reports as its device: one active Ethernet port, no GIDs, MTU 0. */
    private static RdmaDevice device(String name) {
        return new RdmaDevice(name, 0, List.of(new RdmaPort(1, PortState.ACTIVE, LinkLayer.ETHERNET, 0, 0, 0, List.of())));
    }

    /** {@return what the context reports: VERBS, TCP (also for AUTO: TCP sharing memory where it can) or SHM} */
    Transport transport() {
        return opened == Transport.AUTO ? Transport.TCP : opened;
    }

    static TransportChoice choose(RdmaConfig config, Supplier<List<RdmaDevice>> devices) {
        switch (config.transport()) {
            case TCP:
                return sockets(Transport.TCP);
            case SHM:
                return sockets(Transport.SHM);
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
            LOG.log(fallbackLevel(), "transport auto: TCP and shared memory, RDMA is not usable here: {0}", noVerbs.getMessage());
            return sockets(Transport.AUTO);
        }
        boolean anyActive = found.stream().flatMap(d -> d.ports().stream()).anyMatch(p -> p.state() == PortState.ACTIVE);
        if (config.device() == null && !anyActive) {
            LOG.log(fallbackLevel(), "transport auto: TCP and shared memory, no RDMA device with an active port ({0} devices)",
                    found.size());
            return sockets(Transport.AUTO);
        }
        return new TransportChoice(Transport.VERBS, DeviceSelection.select(config, found));
    }

    /**
     * INFO the first time this JVM falls back from RDMA (a user who expected RDMA learns it without
     * raising log levels), DEBUG after that (a process opening many contexts says it once).
     */
    private static Level fallbackLevel() {
        return FALLBACK_SAID.compareAndSet(false, true) ? Level.INFO : Level.DEBUG;
    }

    /** A context without RDMA: TCP, shared memory or both (AUTO). */
    private static TransportChoice sockets(Transport opened) {
        RdmaDevice device = device(opened == Transport.SHM ? "shm" : "tcp");
        return new TransportChoice(opened, new DeviceSelection(device, device.ports().get(0), 0, 0));
    }
}
