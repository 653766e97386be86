package org.jrdma.rxe;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.jrdma.ChannelHandler;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaServer;

/**
 * A server context and a client context on a {@link Fabric}: over verbs, the server on rxe0
 * (10.77.0.1) and the client reaching it across the veth pair from rxe1 (10.77.0.2) in the
 * two-device topology, or over loopback on rxe0 with one device; over TCP, both on loopback.
 */
final class Endpoints implements AutoCloseable {
    final Fabric fabric;
    final RdmaContext server;
    final RdmaContext client;
    final InetAddress clientAddress;

    Endpoints() {
        this(RdmaConfig.builder());
    }

    Endpoints(RdmaConfig.Builder config) {
        this(Fabric.VERBS, config);
    }

    Endpoints(Fabric fabric) {
        this(fabric, RdmaConfig.builder());
    }

    Endpoints(Fabric fabric, RdmaConfig.Builder config) {
        fabric.require();
        this.fabric = fabric;
        server = Rdma.open(fabric.serverConfig(config));
        try {
            client = Rdma.open(fabric.clientConfig(config));
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        clientAddress = fabric.clientAddress();
    }

    /** The address a client context binds to, so that its connections leave from its own device. */
    static InetAddress localAddressOfClients() {
        return Fabric.VERBS.clientAddress();
    }

    static InetSocketAddress nextAddress() {
        return Fabric.VERBS.nextAddress();
    }

    /** A fresh server address on this fabric. */
    InetSocketAddress address() {
        return fabric.nextAddress();
    }

    RdmaServer listen(InetSocketAddress address, ChannelHandler handler) {
        return server.listen(address, handler);
    }

    RdmaChannel connect(InetSocketAddress address, ChannelHandler handler) throws Exception {
        return client.connect(address, clientAddress, handler).get(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        client.close();
        server.close();
    }
}
