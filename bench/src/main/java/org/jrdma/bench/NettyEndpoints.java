package org.jrdma.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.EventLoopGroup;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * Where the {@code netty} command's servers listen and its clients connect from: the servers' address
 * and, over verbs, device; the clients' device and, optionally, address (in the VM, 10.77.0.2 makes the
 * kernel's TCP cross the same veth pair as the emulated RDMA instead of the loopback).
 *
 * @param server       the servers' address (port 0: any)
 * @param client       the address clients connect from, or null: the route's choice
 * @param serverDevice over verbs, the servers' device, or null
 * @param clientDevice over verbs, the clients' device, or null
 */
record NettyEndpoints(InetSocketAddress server, InetAddress client, String serverDevice, String clientDevice) {
    EventLoopGroup serverGroup(NettyTransports transport) {
        return transport.group(serverDevice);
    }

    EventLoopGroup clientGroup(NettyTransports transport) {
        return transport.group(clientDevice);
    }

    /** {@return the clients' local address with any port, or null} */
    InetSocketAddress clientBind() {
        return client == null ? null : new InetSocketAddress(client, 0);
    }

    /** {@code bootstrap}, bound to the clients' address when there is one. */
    Bootstrap bindClient(Bootstrap bootstrap) {
        return client == null ? bootstrap : bootstrap.localAddress(clientBind());
    }
}
