package org.jrdma.rxe;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.TimeUnit;
import org.jrdma.ChannelHandler;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaServer;

/**
 * A server context on rxe0 (10.77.0.1) and a client context that reaches it across the veth pair
 * from rxe1 (10.77.0.2) in the two-device topology, or over loopback on rxe0 with one device.
 */
final class Endpoints implements AutoCloseable {
    private static int nextPort = 19000;

    final RdmaContext server;
    final RdmaContext client;
    final InetAddress clientAddress;

    Endpoints() {
        this(RdmaConfig.builder());
    }

    Endpoints(RdmaConfig.Builder config) {
        RxeEnvironment.requireDevices();
        server = Rdma.open(config.device(RxeEnvironment.serverDevice()).build());
        client = Rdma.open(config.device(RxeEnvironment.clientDevice()).build());
        clientAddress = localAddressOfClients();
    }

    /** The address a client context binds to, so that its connections leave from its own device. */
    static InetAddress localAddressOfClients() {
        try {
            return InetAddress.getByName(RxeEnvironment.topology().equals("two") ? RxeEnvironment.ADDRESS_1
                    : RxeEnvironment.ADDRESS_0);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    static synchronized InetSocketAddress nextAddress() {
        return new InetSocketAddress(RxeEnvironment.ADDRESS_0, nextPort++);
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
