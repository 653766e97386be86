package org.jrdma;

import java.util.List;

/**
 * An RDMA device as seen when {@link Rdma#devices()} was called.
 *
 * @param name     the verbs device name, e.g. {@code mlx5_0} or {@code rxe0}
 * @param nodeGuid the node GUID
 * @param ports    its ports, in port-number order
 */
public record RdmaDevice(String name, long nodeGuid, List<RdmaPort> ports) {
    /**
     * A device as listed.
     *
     * @param name     the verbs device name
     * @param nodeGuid the node GUID
     * @param ports    its ports, in port-number order (copied)
     */
    public RdmaDevice {
        ports = List.copyOf(ports);
    }

    /** {@return the node GUID as verbs tools print it, e.g. {@code 0211:22ff:fe33:4455}} */
    public String nodeGuidText() {
        String hex = String.format("%016x", nodeGuid);
        return hex.substring(0, 4) + ":" + hex.substring(4, 8) + ":" + hex.substring(8, 12) + ":" + hex.substring(12);
    }
}
