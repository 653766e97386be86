package org.jrdma.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jrdma.Transport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What {@link StallReport} prints about a test that stopped making progress: a line per channel of the tracked
 * loops, with what the channel holds — here a server that reads nothing (auto-read off) while the client wrote to
 * it: the bytes arrived (jrdma counted them) and wait to be read.
 */
class StallReportTest {
    private final LoopGroups groups = new LoopGroups();

    @AfterEach
    void shutDown() {
        groups.shutDown();
    }

    @ParameterizedTest
    @MethodSource("org.jrdma.netty.RdmaSocketTestPermutation#transports")
    void eachChannelOfATrackedLoopIsDescribedWithWhatItHolds(Transport transport) throws Exception {
        EventLoopGroup serverGroup = group(transport, "jrdma.netty.serverDevice");
        EventLoopGroup clientGroup = group(transport, "jrdma.netty.clientDevice");
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        AtomicLong read = new AtomicLong();
        Channel server = new ServerBootstrap().group(serverGroup).channel(RdmaServerSocketChannel.class)
                .childOption(io.netty.channel.ChannelOption.AUTO_READ, false)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelActive(ChannelHandlerContext ctx) {
                        accepted.complete(ctx.channel());
                    }

                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        read.addAndGet(((ByteBuf) msg).readableBytes());
                        ((ByteBuf) msg).release();
                    }
                })
                .bind(RdmaSocketTestPermutation.newSocketAddress()).sync().channel();
        Channel client = new Bootstrap().group(clientGroup).channel(RdmaSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter()).connect(server.localAddress()).sync().channel();
        client.writeAndFlush(Unpooled.wrappedBuffer(new byte[100])).sync();
        Channel child = accepted.get(30, TimeUnit.SECONDS);
        String childLine = awaitLine(child, "readable 1/100 B");
        assertTrue(childLine.contains("autoRead=false"), childLine);
        assertTrue(childLine.contains("active=true"), childLine);
        assertTrue(childLine.contains("messagesReceived=1"), childLine);
        String clientLine = awaitLine(client, "messagesSent=1");
        assertTrue(clientLine.contains("in flight 0 B"), clientLine);
        assertTrue(StallReport.describeNow().stream().anyMatch(line -> line.startsWith(server.toString())
                && line.contains("listening=true")), "the server channel is described too");
        child.read();
        child.eventLoop().submit(() -> { }).sync();
        awaitLine(child, "readable 0/0 B");
        assertEquals(100, read.get());
    }

    /**
     * The line on {@code channel} once it contains {@code expected}. The states reach it as its loop handles what
     * arrived, and nothing in the pipeline says so (auto-read is off): each look waits for one more turn of the
     * channel's loop, so the bound is the 30 s the bytes may take to arrive, not a pause between looks.
     */
    private static String awaitLine(Channel channel, String expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String last = null;
        while (System.nanoTime() < deadline) {
            for (String line : StallReport.describeNow()) {
                if (line.startsWith(channel.toString())) {
                    last = line;
                }
            }
            if (last != null && last.contains(expected)) {
                return last;
            }
            channel.eventLoop().submit(() -> { }).sync();
        }
        throw new AssertionError("no line on " + channel + " says \"" + expected + "\"; the last: " + last);
    }

    private EventLoopGroup group(Transport transport, String deviceProperty) {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1,
                StallReport.tracked(RdmaIoHandler.newFactory(RdmaSocketTestPermutation.config(transport, deviceProperty))));
        groups.add(group);
        return group;
    }
}
