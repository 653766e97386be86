package org.jrdma.bench;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.Transport;
import org.jrdma.netty.RdmaIoHandler;
import org.jrdma.netty.RdmaServerSocketChannel;
import org.jrdma.netty.RdmaSocketChannel;

/**
 * The Netty transports the {@code netty} command compares: Netty's NIO and epoll over the kernel's TCP,
 * jrdma-netty over jrdma's TCP, shared memory or verbs. Each has a server group and a client group of
 * one loop each.
 */
enum NettyTransports {
    NIO("Netty NIO"), EPOLL("Netty epoll"), TCP("jrdma-netty tcp"), SHM("jrdma-netty shm"), VERBS("jrdma-netty verbs");

    final String title;

    NettyTransports(String title) {
        this.title = title;
    }

    /** {@return null when this transport can run here, else why not} */
    String unavailable() {
        if (this == EPOLL && !Epoll.isAvailable()) {
            return "epoll is not available: " + Epoll.unavailabilityCause();
        }
        return null;
    }

    EventLoopGroup group(String device) {
        return new MultiThreadIoEventLoopGroup(1, handlers(device));
    }

    private IoHandlerFactory handlers(String device) {
        return switch (this) {
            case NIO -> NioIoHandler.newFactory();
            case EPOLL -> EpollIoHandler.newFactory();
            case TCP -> RdmaIoHandler.newFactory(RdmaConfig.builder().transport(Transport.TCP).build());
            case SHM -> RdmaIoHandler.newFactory(RdmaConfig.builder().transport(Transport.SHM).build());
            case VERBS -> RdmaIoHandler.newFactory(device == null ? RdmaConfig.builder().transport(Transport.VERBS).build()
                    : RdmaConfig.builder().transport(Transport.VERBS).device(device).build());
        };
    }

    Class<? extends ServerChannel> serverChannel() {
        return switch (this) {
            case NIO -> NioServerSocketChannel.class;
            case EPOLL -> EpollServerSocketChannel.class;
            default -> RdmaServerSocketChannel.class;
        };
    }

    Class<? extends Channel> channel() {
        return switch (this) {
            case NIO -> NioSocketChannel.class;
            case EPOLL -> EpollSocketChannel.class;
            default -> RdmaSocketChannel.class;
        };
    }
}
