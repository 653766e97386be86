package org.jrdma.netty;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jrdma.PeerSilentException;
import org.jrdma.RdmaConfig;
import org.jrdma.Transport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A jrdma channel that fails (here: the peer's loop stops, so its keepalive goes silent) is reported to
 * the pipeline as an {@link IOException} carrying jrdma's cause before the channel goes inactive — as a
 * reset TCP connection is — not as a silent close.
 */
class ChannelFailureReportTest {
    private final LoopGroups groups = new LoopGroups();
    private final CountDownLatch releaseServerLoop = new CountDownLatch(1);

    static List<Transport> transports() {
        return RdmaSocketTestPermutation.transports();
    }

    @AfterEach
    void shutDown() {
        releaseServerLoop.countDown();
        groups.shutDown();
    }

    @ParameterizedTest
    @MethodSource("transports")
    void aSilentPeerIsReportedAsAnIoExceptionBeforeTheChannelCloses(Transport transport) throws Exception {
        EventLoopGroup serverGroup = group("server", RdmaSocketTestPermutation.config(transport, "jrdma.netty.serverDevice"));
        RdmaConfig clientConfig = RdmaSocketTestPermutation.config(transport, "jrdma.netty.clientDevice").toBuilder()
                .keepaliveMillis(1000).build();
        EventLoopGroup clientGroup = group("client", clientConfig);
        Channel server = new ServerBootstrap().group(serverGroup).channel(RdmaServerSocketChannel.class)
                .childHandler(new ChannelInboundHandlerAdapter())
                .bind(RdmaSocketTestPermutation.newSocketAddress()).sync().channel();
        CompletableFuture<Throwable> reported = new CompletableFuture<>();
        CompletableFuture<Void> inactive = new CompletableFuture<>();
        Channel client = new Bootstrap().group(clientGroup).channel(RdmaSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        reported.complete(cause);
                    }

                    @Override
                    public void channelInactive(ChannelHandlerContext ctx) {
                        inactive.complete(null);
                    }
                }).connect((InetSocketAddress) server.localAddress()).sync().channel();

        // The server's loop drives its context: blocked, it answers no keepalive.
        server.eventLoop().execute(() -> {
            try {
                releaseServerLoop.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });

        Throwable cause = reported.get(60, TimeUnit.SECONDS);
        assertInstanceOf(IOException.class, cause);
        assertInstanceOf(PeerSilentException.class, cause.getCause(), "jrdma's cause is kept");
        assertTrue(cause.getMessage().contains("failed"), cause.getMessage());
        inactive.get(60, TimeUnit.SECONDS);
        assertTrue(!client.isActive());
    }

    private EventLoopGroup group(String role, RdmaConfig config) {
        EventLoopGroup group = RdmaSocketTestPermutation.oneLoop("failure-" + role, config);
        groups.add(group);
        return group;
    }
}
