package org.jrdma.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.jrdma.RegisteredBuffer;
import org.jrdma.Transport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The channels' default allocator over registered memory: large buffers from it are sent as they are
 * (their bytes' registered block goes to jrdma, the buffer is kept until the peer has read it), also as
 * slices and after growing; the bytes arrive whole and in order, and each block is given back.
 */
class RegisteredAllocatorTest {
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
    void largeBuffersAreSentFromTheirRegisteredMemoryAndArriveWholeAndInOrder(Transport transport) throws Exception {
        Channel client = connect(transport, null);
        ByteBufAllocator alloc = client.alloc();
        assertTrue(alloc instanceof RegisteredByteBufAllocator, "default allocator: " + alloc);
        Random random = new Random(7);
        byte[] whole = bytes(random, 512 << 10);
        byte[] sliced = bytes(random, 1 << 20);
        byte[] grown = bytes(random, 200 << 10);
        byte[] beyondPool = bytes(random, (3 << 20) / 2);
        collector.expect(whole.length + sliced.length + grown.length + beyondPool.length);

        ByteBuf first = alloc.directBuffer(whole.length).writeBytes(whole);
        RegisteredByteBuf.Region firstRegion = RegisteredByteBuf.regionOf(first, (RegisteredByteBufAllocator) alloc);
        assertNotNull(firstRegion, "a 512 KiB buffer lies in registered memory");
        assertEquals(0, firstRegion.offset());

        ByteBuf second = alloc.directBuffer(sliced.length).writeBytes(sliced);
        ByteBuf firstHalf = second.retainedSlice(0, sliced.length / 2);
        ByteBuf secondHalf = second.retainedSlice(sliced.length / 2, sliced.length / 2);
        second.release();
        RegisteredByteBuf.Region halfRegion = RegisteredByteBuf.regionOf(secondHalf, (RegisteredByteBufAllocator) alloc);
        assertNotNull(halfRegion, "a slice of a registered buffer lies in it");
        assertEquals(sliced.length / 2, halfRegion.offset());

        ByteBuf third = alloc.directBuffer(64 << 10).writeBytes(grown); // grows into a larger registered block
        RegisteredByteBuf.Region grownRegion = RegisteredByteBuf.regionOf(third, (RegisteredByteBufAllocator) alloc);
        assertNotNull(grownRegion, "grown within the pool's sizes, it stays registered");
        assertTrue(firstRegion.memory() != grownRegion.memory());

        ByteBuf fourth = alloc.directBuffer(256 << 10).writeBytes(beyondPool); // grows beyond the largest block: plain memory
        assertNull(RegisteredByteBuf.regionOf(fourth, (RegisteredByteBufAllocator) alloc));

        client.write(first);
        client.write(firstHalf);
        client.write(secondHalf);
        client.write(third);
        client.writeAndFlush(fourth).sync();

        byte[] got = collector.all().get(60, TimeUnit.SECONDS);
        assertArrayEquals(concat(whole, sliced, grown, beyondPool), got);
        for (RegisteredBuffer block : List.of(firstRegion.memory(), halfRegion.memory(), grownRegion.memory())) {
            awaitClosed(block);
        }
        long inPlace = client.eventLoop().submit(() -> ((RdmaSocketChannel) client).bytesSentInPlace()).get();
        assertEquals(whole.length + sliced.length + grown.length, inPlace, "all but the plain buffer were sent without a copy");
        assertEquals(0, first.refCnt());
        assertEquals(0, third.refCnt());
        client.close().sync();
    }

    @ParameterizedTest
    @MethodSource("transports")
    void smallHeapForeignAndChosenBuffersAreNotRegistered(Transport transport) throws Exception {
        Channel client = connect(transport, null);
        RegisteredByteBufAllocator alloc = (RegisteredByteBufAllocator) client.alloc();
        ByteBuf small = alloc.directBuffer(1024);
        ByteBuf heap = alloc.heapBuffer(256 << 10);
        RegisteredByteBufAllocator other = new RegisteredByteBufAllocator(alloc.context());
        ByteBuf foreign = other.directBuffer(256 << 10);
        try {
            assertNull(RegisteredByteBuf.regionOf(small, alloc), "below the registered sizes: coalesced (copied) anyway");
            assertNull(RegisteredByteBuf.regionOf(heap, alloc));
            assertNull(RegisteredByteBuf.regionOf(foreign, alloc), "another allocator's buffer is copied");
            assertNotNull(RegisteredByteBuf.regionOf(foreign, other));
        } finally {
            small.release();
            heap.release();
            foreign.release();
        }
        client.close().sync();

        Channel chosen = connect(transport, UnpooledByteBufAllocator.DEFAULT);
        assertSame(UnpooledByteBufAllocator.DEFAULT, chosen.alloc(), "a program's ALLOCATOR option wins");
        chosen.close().sync();
    }

    private Channel connect(Transport transport, ByteBufAllocator chosen) throws InterruptedException {
        EventLoopGroup serverGroup = group(transport, "server", "jrdma.netty.serverDevice");
        EventLoopGroup clientGroup = group(transport, "client", "jrdma.netty.clientDevice");
        Channel server = new ServerBootstrap().group(serverGroup).channel(RdmaServerSocketChannel.class)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(collector);
                    }
                }).bind(RdmaSocketTestPermutation.newSocketAddress()).sync().channel();
        Bootstrap client = new Bootstrap().group(clientGroup).channel(RdmaSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter());
        if (chosen != null) {
            client.option(ChannelOption.ALLOCATOR, chosen);
        }
        return client.connect((InetSocketAddress) server.localAddress()).sync().channel();
    }

    private EventLoopGroup group(Transport transport, String role, String deviceProperty) {
        EventLoopGroup group = RdmaSocketTestPermutation.oneLoop("allocator-" + role, RdmaSocketTestPermutation.config(transport, deviceProperty));
        groups.add(group);
        return group;
    }

    /** The block is given back once the peer read it: the send completes a little after the peer has the bytes. */
    private static void awaitClosed(RegisteredBuffer block) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!block.isClosed() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(block.isClosed(), "the registered block was given back");
    }

    private static byte[] bytes(Random random, int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.write(part, 0, part.length);
        }
        return out.toByteArray();
    }
}
