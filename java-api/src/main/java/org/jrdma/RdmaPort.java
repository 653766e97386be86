package org.jrdma;

import java.util.List;

/**
 * One port of an RDMA device.
 *
 * @param number    1-based port number
 * @param state     logical state
 * @param linkLayer InfiniBand or Ethernet (RoCE)
 * @param activeMtu active path MTU in bytes (256..4096), 0 when unknown
 * @param maxMtu    largest MTU the port supports, in bytes
 * @param lid       the port's LID (0 on Ethernet)
 * @param gids      the valid GID table entries
 */
public record RdmaPort(int number, PortState state, LinkLayer linkLayer, int activeMtu, int maxMtu, int lid,
                       List<Gid> gids) {
    /**
     * A port as listed.
     *
     * @param number    1-based port number
     * @param state     logical state
     * @param linkLayer InfiniBand or Ethernet (RoCE)
     * @param activeMtu the active MTU in bytes
     * @param maxMtu    the largest MTU in bytes
     * @param lid       the LID (InfiniBand; 0 on RoCE)
     * @param gids      the valid GID table entries (copied)
     */
    public RdmaPort {
        gids = List.copyOf(gids);
    }
}
