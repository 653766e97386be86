package org.jrdma.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.jrdma.RdmaConfig;
import org.jrdma.Transport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * How a flush's copied writes become jrdma messages: frames written as a small header and a larger body
 * (as HTTP/2 and gRPC write them, from memory that is not registered) leave as one message per MiB, not
 * two per frame; small writes alone still leave eagerly, one message per eager payload. The bytes arrive
 * whole and in order either way.
 */
class WriteGatheringTest {
    private static final int FRAMES = 64;
    private static final int HEADER = 9;
    private static final int BODY = 16 << 10;

    private final LoopGroups groups = new LoopGroups();
    private final ByteCollector collector = new ByteCollector();

    static List<Transport> transports() {
        return RdmaSocketTestPermutation.transports();
    }

    @AfterEach
    void shutDown() {
        groups.shutDown();
    }

    @ParameterizedTest
    @MethodSource("transports")
    void headersAndBodiesOfAFlushLeaveAsOneMessagePerMebibyte(Transport transport) throws Exception {
        Channel client = connect(transport);
        Random random = new Random(11);
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        for (int i = 0; i < FRAMES; i++) {
            byte[] header = bytes(random, HEADER);
            byte[] body = bytes(random, BODY);
            written.write(header, 0, header.length);
            written.write(body, 0, body.length);
            client.write(Unpooled.wrappedBuffer(header)); // heap memory: copied, as gRPC's buffers are
            client.write(Unpooled.wrappedBuffer(body));
        }
        int expected = written.size();
        collector.expect(expected);
        client.flush();

        assertArrayEquals(written.toByteArray(), collector.all().get(60, TimeUnit.SECONDS));
        long messages = client.eventLoop().submit(() -> ((RdmaSocketChannel) client).messagesSent()).get();
        int mebibytes = (expected + RegisteredWrites.LARGE_CHUNK - 1) / RegisteredWrites.LARGE_CHUNK;
        assertEquals(mebibytes, messages, FRAMES + " frames of " + (HEADER + BODY) + " bytes (" + expected + " bytes) in one flush");
        client.close().sync();
    }

    @ParameterizedTest
    @MethodSource("transports")
    void smallWritesAloneStillLeaveEagerly(Transport transport) throws Exception {
        Channel client = connect(transport);
        Random random = new Random(12);
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        for (int i = 0; i < 100; i++) {
            byte[] small = bytes(random, 100);
            written.write(small, 0, small.length);
            client.write(Unpooled.wrappedBuffer(small));
        }
        int expected = written.size();
        collector.expect(expected);
        client.flush();

        assertArrayEquals(written.toByteArray(), collector.all().get(60, TimeUnit.SECONDS));
        long messages = client.eventLoop().submit(() -> ((RdmaSocketChannel) client).messagesSent()).get();
        int eagerPayload = config(transport, "jrdma.netty.clientDevice").eagerSize() - 16;
        assertEquals((expected + eagerPayload - 1) / eagerPayload, messages, "messages of up to the eager payload");
        client.close().sync();
    }

    private Channel connect(Transport transport) throws InterruptedException {
        EventLoopGroup serverGroup = group(transport, "server", "jrdma.netty.serverDevice");
        EventLoopGroup clientGroup = group(transport, "client", "jrdma.netty.clientDevice");
        Channel server = new ServerBootstrap().group(serverGroup).channel(RdmaServerSocketChannel.class)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(collector);
                    }
                }).bind(RdmaSocketTestPermutation.newSocketAddress()).sync().channel();
        return new Bootstrap().group(clientGroup).channel(RdmaSocketChannel.class).handler(new ChannelInboundHandlerAdapter())
                .connect((InetSocketAddress) server.localAddress()).sync().channel();
    }

    private static RdmaConfig config(Transport transport, String deviceProperty) {
        return RdmaSocketTestPermutation.config(transport, deviceProperty);
    }

    private EventLoopGroup group(Transport transport, String role, String deviceProperty) {
        EventLoopGroup group = RdmaSocketTestPermutation.oneLoop("gathering-" + role, config(transport, deviceProperty));
        groups.add(group);
        return group;
    }

    private static byte[] bytes(Random random, int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }
}
