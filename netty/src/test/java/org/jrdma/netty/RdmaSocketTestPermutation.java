package org.jrdma.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.socket.SocketTestPermutation;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaConfigBuilder;
import org.jrdma.Transport;

/**
 * Netty's test-suite permutations over jrdma, as Netty's own epoll and io_uring tests build theirs:
 * a server and a client bootstrap on groups of {@link RdmaIoHandler}s, once per transport named by the
 * system property {@code jrdma.netty.transports} (default "tcp,shm": the host's mvn verify; the VM
 * runs "verbs"). Server and client use the same transport; each has a group of its own. Over verbs
 * the servers listen on {@code jrdma.netty.address} (an address of {@code jrdma.netty.serverDevice})
 * and the clients use {@code jrdma.netty.clientDevice} (test-rxe/vm/netty-verbs.sh sets them).
 */
final class RdmaSocketTestPermutation extends SocketTestPermutation {
    static final RdmaSocketTestPermutation INSTANCE = new RdmaSocketTestPermutation();

    private final List<Groups> groups = new ArrayList<>();

    /** A transport's server and client groups. */
    private record Groups(Transport transport, EventLoopGroup server, EventLoopGroup client) { }

    private RdmaSocketTestPermutation() {
        for (Transport transport : transports()) {
            groups.add(new Groups(transport, group(transport + "-server", config(transport, "jrdma.netty.serverDevice")),
                    group(transport + "-client", config(transport, "jrdma.netty.clientDevice"))));
        }
    }

    /** {@return whether the tests run over verbs (in the VM)} */
    static boolean overVerbs() {
        return transports().contains(Transport.VERBS);
    }

    /** {@return the transports the tests run over: {@code jrdma.netty.transports}, default "tcp,shm"} */
    static List<Transport> transports() {
        List<Transport> transports = new ArrayList<>();
        for (String name : System.getProperty("jrdma.netty.transports", "tcp,shm").split(",")) {
            transports.add(Transport.valueOf(name.trim().toUpperCase(Locale.ROOT)));
        }
        return transports;
    }

    /** The address the tests' servers bind: {@code jrdma.netty.address} (over verbs), else Netty's loopback address. */
    static SocketAddress newSocketAddress() {
        String address = System.getProperty("jrdma.netty.address");
        try {
            return new InetSocketAddress(address == null ? NetUtil.LOCALHOST : InetAddress.getByName(address), 0);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("jrdma.netty.address=" + address + " is no address", e);
        }
    }

    /** A context configuration over {@code transport}, on the device a system property names (over verbs). */
    static RdmaConfig config(Transport transport, String deviceProperty) {
        RdmaConfigBuilder config = RdmaConfig.builder().transport(transport);
        if (transport == Transport.VERBS) {
            // Soft-RoCE in the two-vCPU emulated guest can answer later than the default ACK timeout (67 ms) when the rest of
            // the suite keeps its CPUs busy. About 4 s per try (6 tries, the most that still detects a dead peer) keeps such a
            // responder from ending a channel with RETRY_EXC_ERR. (Most retransmissions of earlier runs were the emulated link
            // reordering packets, which rxe-setup.sh now prevents: docs/testing.md.)
            config.timeout(20);
        }
        String device = System.getProperty(deviceProperty);
        return (device == null ? config : config.device(device)).build();
    }

    /** A group of one jrdma loop whose threads are named {@code name} (the tests' own servers and clients). */
    static EventLoopGroup oneLoop(String name, RdmaConfig config) {
        return new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory(name, true),
                StallReport.tracked(RdmaIoHandler.newFactory(config)));
    }

    private static EventLoopGroup group(String name, RdmaConfig config) {
        return new MultiThreadIoEventLoopGroup(NUM_THREADS, new DefaultThreadFactory("testsuite-jrdma-" + name, true),
                StallReport.tracked(RdmaIoHandler.newFactory(config)));
    }

    @Override
    public List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> socket() {
        List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> list = new ArrayList<>();
        for (Groups g : groups) {
            list.add(new BootstrapComboFactory<>() {
                @Override
                public ServerBootstrap newServerInstance() {
                    return new ServerBootstrap().group(g.server()).channel(RdmaServerSocketChannel.class);
                }

                @Override
                public Bootstrap newClientInstance() {
                    return new Bootstrap().group(g.client()).channel(RdmaSocketChannel.class);
                }

                @Override
                public String toString() {
                    return "jrdma " + g.transport();
                }
            });
        }
        return list;
    }

    @Override
    public List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> socketWithFastOpen() {
        return socket();
    }

    @Override
    public List<BootstrapFactory<ServerBootstrap>> serverSocket() {
        List<BootstrapFactory<ServerBootstrap>> list = new ArrayList<>();
        for (Groups g : groups) {
            list.add(() -> new ServerBootstrap().group(g.server()).channel(RdmaServerSocketChannel.class));
        }
        return list;
    }

    @Override
    public List<BootstrapFactory<Bootstrap>> clientSocket() {
        List<BootstrapFactory<Bootstrap>> list = new ArrayList<>();
        for (Groups g : groups) {
            list.add(() -> new Bootstrap().group(g.client()).channel(RdmaSocketChannel.class));
        }
        return list;
    }
}
