package org.jrdma.bench;

import java.net.InetAddress;
import org.jrdma.RdmaContext;
import picocli.CommandLine.Parameters;

/**
 * The {@code [server-ip [client-ip]]} of the one-process examples (pingpong, keyed, kv): where the
 * server listens and the client's source address; by default the address of the device's RoCE v2
 * GID for both, i.e. loopback through the device.
 */
final class PeerAddresses {
    @Parameters(index = "0", arity = "0..1", paramLabel = "server-ip",
            description = "the server's address (default: the device's RoCE v2 GID address; without RDMA the loopback"
                    + " address)")
    InetAddress server;

    @Parameters(index = "1", arity = "0..1", paramLabel = "client-ip", description = "the client's address (default: server-ip)")
    InetAddress client;

    InetAddress server(RdmaContext ctx) {
        return server != null ? server : PingPongCommand.gidAddress(ctx);
    }

    InetAddress client(RdmaContext ctx) {
        return client != null ? client : server(ctx);
    }
}
