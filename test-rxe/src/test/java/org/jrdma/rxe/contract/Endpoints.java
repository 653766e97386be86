package org.jrdma.rxe.contract;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.jrdma.ChannelHandler;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaConfigBuilder;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaServer;

/**
 * A server context and a client context on a {@link Fabric}: over verbs, the server on rxe0
 * (10.77.0.1) and the client reaching it across the veth pair from rxe1 (10.77.0.2) in the
 * two-device topology, or over loopback on rxe0 with one device; over TCP, both on loopback.
 */
public final class Endpoints implements AutoCloseable {
    public final Fabric fabric;
    public final RdmaContext server;
    public final RdmaContext client;
    public final InetAddress clientAddress;

    public Endpoints() {
        this(RdmaConfig.builder());
    }

    public Endpoints(RdmaConfigBuilder config) {
        this(Fabric.VERBS, config);
    }

    public Endpoints(Fabric fabric) {
        this(fabric, RdmaConfig.builder());
    }

    public Endpoints(Fabric fabric, RdmaConfigBuilder config) {
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
    public static InetAddress localAddressOfClients() {
        return Fabric.VERBS.clientAddress();
    }

    public static InetSocketAddress nextAddress() {
        return Fabric.VERBS.nextAddress();
    }

    /** A fresh server address on this fabric. */
    public InetSocketAddress address() {
        return fabric.nextAddress();
    }

    public RdmaServer listen(InetSocketAddress address, ChannelHandler handler) {
        return server.listen(address, handler);
    }

    public RdmaChannel connect(InetSocketAddress address, ChannelHandler handler) throws Exception {
        return client.connect(address, clientAddress, handler).get(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        client.close();
        server.close();
    }
}
