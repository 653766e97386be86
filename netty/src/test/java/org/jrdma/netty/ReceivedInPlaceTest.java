package org.jrdma.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jrdma.RdmaClosedException;
import org.jrdma.RdmaMessage;
import org.jrdma.Transport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Large messages reach the pipeline as they lie in jrdma's memory (no copy on receive): the pieces a
 * read hands on are slices of one buffer over the received message, which stays retained while any
 * of them is held — also many at once, without stopping the peer — and goes back to jrdma when the
 * last is released. Small messages are copied (they would hold the channel's receive buffers).
 */
class ReceivedInPlaceTest {
    private static final int LARGE = 256 << 10;
    private static final int MESSAGES = 8;

    private final LoopGroups groups = new LoopGroups();
    private final List<ByteBuf> held = new ArrayList<>();
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();
    private final CompletableFuture<byte[]> all = new CompletableFuture<>();
    private volatile int expected;

    static List<Transport> transports() {
        return RdmaSocketTestPermutation.transports();
    }

    @AfterEach
    void shutDown() {
        held.forEach(ByteBuf::release);
        groups.shutDown();
    }

    @ParameterizedTest
    @MethodSource("transports")
    void largeMessagesAreHandedOnInPlaceAndGoBackWhenTheLastPieceIsReleased(Transport transport) throws Exception {
        Channel client = connect(transport);
        Random random = new Random(11);
        byte[] small = bytes(random, 100);
        byte[][] large = new byte[MESSAGES][];
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        sent.write(small, 0, small.length);
        client.write(client.alloc().directBuffer(small.length).writeBytes(small));
        client.flush(); // alone in its message
        for (int i = 0; i < MESSAGES; i++) {
            large[i] = bytes(random, LARGE);
            sent.write(large[i], 0, LARGE);
            client.write(client.alloc().directBuffer(LARGE).writeBytes(large[i]));
        }
        expected = sent.size();
        client.writeAndFlush(client.alloc().directBuffer(0)).sync();

        assertArrayEquals(sent.toByteArray(), all.get(60, TimeUnit.SECONDS), "the bytes arrive whole and in order");
        Map<ReceivedByteBuf, Integer> messages = new IdentityHashMap<>();
        ByteBuf first = held.get(0);
        assertNull(inPlace(first), "a small message is copied");
        for (ByteBuf piece : held.subList(1, held.size())) {
            ReceivedByteBuf message = inPlace(piece);
            assertTrue(message != null, "a piece of a large message is a slice of it: " + piece);
            messages.merge(message, piece.readableBytes(), Integer::sum);
        }
        assertEquals(MESSAGES, messages.size(), "one buffer per message, all held at once");
        List<RdmaMessage> returned = new ArrayList<>();
        for (Map.Entry<ReceivedByteBuf, Integer> each : messages.entrySet()) {
            assertEquals(LARGE, each.getValue(), "a message's pieces cover it");
            RdmaMessage message = each.getKey().message();
            assertFalse(message.holdsReceiveBuffer());
            assertEquals(LARGE, message.payload().remaining(), "retained while its pieces are held");
            returned.add(message);
        }
        held.forEach(ByteBuf::release);
        held.clear();
        for (RdmaMessage message : returned) {
            assertThrows(RdmaClosedException.class, message::payload, "given back to jrdma with its last piece");
        }
        client.close().sync();
    }

    @ParameterizedTest
    @MethodSource("transports")
    void aCumulatingDecoderHoldsNoMessageBeyondItsBytes(Transport transport) throws Exception {
        // Frames that do not line up with the messages: the decoder always keeps part of a frame. Each message is
        // read in one piece, so the first arrives while the cumulation is empty and becomes it; a composite
        // cumulator then appends the later ones to it.
        int frame = 300 << 10;
        List<RdmaMessage> seen = new CopyOnWriteArrayList<>();
        List<byte[]> frames = new CopyOnWriteArrayList<>();
        int expectedFrames = MESSAGES * LARGE / frame;
        CompletableFuture<Void> decoded = new CompletableFuture<>();
        Channel client = connect(transport, ch -> ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ReceivedByteBuf message = inPlace((ByteBuf) msg);
                if (message != null && !seen.contains(message.message())) {
                    seen.add(message.message());
                }
                ctx.fireChannelRead(msg);
            }
        }, new ByteToMessageDecoder() {
            {
                setCumulator(COMPOSITE_CUMULATOR); // appends what arrives to a composite cumulation (as SslHandler may)
            }

            @Override
            protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
                while (in.readableBytes() >= frame) {
                    byte[] bytes = new byte[frame];
                    in.readBytes(bytes);
                    frames.add(bytes);
                    if (frames.size() == expectedFrames) {
                        decoded.complete(null);
                    }
                }
            }
        }), new FixedRecvByteBufAllocator(LARGE));
        Random random = new Random(12);
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        for (int i = 0; i < MESSAGES; i++) {
            byte[] large = bytes(random, LARGE);
            sent.write(large, 0, LARGE);
            client.writeAndFlush(client.alloc().directBuffer(LARGE).writeBytes(large));
        }
        decoded.get(60, TimeUnit.SECONDS);
        byte[] all = sent.toByteArray();
        for (int i = 0; i < expectedFrames; i++) {
            assertArrayEquals(Arrays.copyOfRange(all, i * frame, (i + 1) * frame), frames.get(i), "frame " + i);
        }
        assertEquals(MESSAGES, seen.size(), "every message was handed on in place");
        // All but the last message are wholly consumed: none may stay held by the decoder's cumulation.
        for (RdmaMessage message : seen.subList(0, MESSAGES - 1)) {
            assertThrows(RdmaClosedException.class, message::payload, "a consumed message went back to jrdma");
        }
        client.close().sync();
    }

    /** {@return the received message {@code piece} is part of, or null when it is a copy} */
    private static ReceivedByteBuf inPlace(ByteBuf piece) {
        ByteBuf root = piece;
        while (root.unwrap() != null) {
            root = root.unwrap();
        }
        return root instanceof ReceivedByteBuf message ? message : null;
    }

    private Channel connect(Transport transport) throws InterruptedException {
        return connect(transport, ch -> ch.pipeline().addLast(new Holder()), null);
    }

    /** A client connected to a server whose accepted channels get {@code pipeline} (and {@code reads}, if not null). */
    private Channel connect(Transport transport, Consumer<Channel> pipeline, RecvByteBufAllocator reads)
            throws InterruptedException {
        EventLoopGroup serverGroup = group(transport, "server", "jrdma.netty.serverDevice");
        EventLoopGroup clientGroup = group(transport, "client", "jrdma.netty.clientDevice");
        ServerBootstrap bootstrap = new ServerBootstrap().group(serverGroup).channel(RdmaServerSocketChannel.class);
        if (reads != null) {
            bootstrap.childOption(ChannelOption.RCVBUF_ALLOCATOR, reads);
        }
        Channel server = bootstrap.childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        pipeline.accept(ch);
                    }
                }).bind(RdmaSocketTestPermutation.newSocketAddress()).sync().channel();
        return new Bootstrap().group(clientGroup).channel(RdmaSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter())
                .connect((InetSocketAddress) server.localAddress()).sync().channel();
    }

    private EventLoopGroup group(Transport transport, String role, String deviceProperty) {
        EventLoopGroup group = RdmaSocketTestPermutation.oneLoop("in-place-" + role, RdmaSocketTestPermutation.config(transport, deviceProperty));
        groups.add(group);
        return group;
    }

    /** The server side: keeps every piece it is handed (as a decoder waiting for a frame would) and notes the bytes. */
    private final class Holder extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf piece = (ByteBuf) msg;
            held.add(piece);
            byte[] bytes = new byte[piece.readableBytes()];
            piece.getBytes(piece.readerIndex(), bytes);
            received.write(bytes, 0, bytes.length);
            if (received.size() >= expected && expected > 0) {
                all.complete(received.toByteArray());
            }
        }
    }

    private static byte[] bytes(Random random, int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }
}
