package org.jrdma.rxe.contract;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jrdma.Access;
import org.jrdma.ChannelHandler;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaMessage;
import org.jrdma.RdmaOperationException;
import org.jrdma.RegisteredBuffer;
import org.jrdma.RemoteBuffer;
import org.junit.jupiter.api.Test;

/** RDMA WRITE, READ, WRITE_WITH_IMM and atomics against memory the peer exposed, with content checks. */
public abstract class OneSidedContract {
    /** {@return what this run of the contract goes over} */
    protected abstract Fabric fabric();

    /** The server exposes one buffer and tells the client its token in the first message. */
    public static final class Exposing implements ChannelHandler {
        final RegisteredBuffer exposed;
        final BlockingQueue<Integer> immediates = new LinkedBlockingQueue<>();
        final CompletableFuture<RdmaChannel> channel = new CompletableFuture<>();
        final BlockingQueue<RdmaChannel> accepted = new LinkedBlockingQueue<>();

        public Exposing(RegisteredBuffer exposed) {
            this.exposed = exposed;
        }

        @Override
        public void onOpen(RdmaChannel ch) {
            channel.complete(ch);
            accepted.add(ch);
        }

        @Override
        public void onMessage(RdmaChannel ch, RdmaMessage message) {
        }

        @Override
        public void onImmediate(RdmaChannel ch, int immediate) {
            immediates.add(immediate);
        }
    }

    @Test
    void writeReadWriteWithImmediateAndAtomics() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            InetSocketAddress address = e.address();
            RegisteredBuffer exposed = e.server.allocate(64 * 1024, Access.REMOTE_READ, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC);
            Exposing handler = new Exposing(exposed);
            e.listen(address, handler);
            BlockingQueue<RemoteBuffer> tokens = new LinkedBlockingQueue<>();
            RdmaChannel channel = e.connect(address, (ch, m) -> tokens.add(RemoteBuffer.fromBytes(m.payload())));
            RdmaChannel serverSide = handler.channel.get(10, TimeUnit.SECONDS);
            RegisteredBuffer tokenOut = e.server.allocate(64);
            exposed.remote().writeTo(tokenOut.buffer());
            serverSide.send(tokenOut, 0, RemoteBuffer.BYTES).get(10, TimeUnit.SECONDS);
            RemoteBuffer remote = tokens.poll(10, TimeUnit.SECONDS);
            assertEquals(exposed.remote(), remote);

            RegisteredBuffer local = e.client.allocate(64 * 1024);
            byte[] data = MessagingContract.pattern(10_000, 3);
            local.buffer().put(data);
            channel.write(local, 0, remote, 1000, data.length).get(10, TimeUnit.SECONDS);
            byte[] landed = new byte[data.length];
            exposed.buffer().position(1000).get(landed);
            assertArrayEquals(data, landed, "WRITE content");

            RegisteredBuffer readBack = e.client.allocate(64 * 1024);
            channel.read(remote, 1000, readBack, 5, data.length).get(10, TimeUnit.SECONDS);
            byte[] read = new byte[data.length];
            readBack.buffer().position(5).get(read);
            assertArrayEquals(data, read, "READ content");

            channel.writeWithImmediate(local, 0, remote, 20_000, 512, 0xC0FFEE).get(10, TimeUnit.SECONDS);
            assertEquals(0xC0FFEE, handler.immediates.poll(10, TimeUnit.SECONDS));
            byte[] immData = new byte[512];
            exposed.buffer().position(20_000).get(immData);
            assertArrayEquals(Arrays.copyOf(data, 512), immData);

            exposed.buffer().order(ByteOrder.nativeOrder()).putLong(4096, 40);
            assertEquals(40L, channel.fetchAndAdd(remote, 4096, 2).get(10, TimeUnit.SECONDS));
            assertEquals(42L, exposed.buffer().order(ByteOrder.nativeOrder()).getLong(4096));
            assertEquals(42L, channel.compareAndSwap(remote, 4096, 42, 7).get(10, TimeUnit.SECONDS));
            assertEquals(7L, exposed.buffer().order(ByteOrder.nativeOrder()).getLong(4096));
            assertEquals(7L, channel.compareAndSwap(remote, 4096, 1, 99).get(10, TimeUnit.SECONDS), "failed CAS returns the value");
            assertEquals(7L, exposed.buffer().order(ByteOrder.nativeOrder()).getLong(4096));
        }
    }

    @Test
    void theAcceptingSideWritesReadsAndAddsIntoTheConnectingSidesMemory() throws Exception {
        // The other direction: the client exposes memory, the server's channel operates on it (the
        // connecting side's queue pair must grant remote access too).
        try (Endpoints e = new Endpoints(fabric())) {
            InetSocketAddress address = e.address();
            RegisteredBuffer exposed = e.client.allocate(8192, Access.REMOTE_READ, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC);
            Exposing handler = new Exposing(exposed);
            e.listen(address, handler);
            e.connect(address, (ch, m) -> { });
            RdmaChannel serverSide = handler.channel.get(10, TimeUnit.SECONDS);
            RemoteBuffer remote = exposed.remote();
            RegisteredBuffer local = e.server.allocate(8192);
            byte[] data = MessagingContract.pattern(3000, 9);
            local.buffer().put(data);
            serverSide.write(local, 0, remote, 100, data.length).get(10, TimeUnit.SECONDS);
            byte[] landed = new byte[data.length];
            exposed.buffer().position(100).get(landed);
            assertArrayEquals(data, landed, "WRITE content");
            RegisteredBuffer readBack = e.server.allocate(8192);
            serverSide.read(remote, 100, readBack, 0, data.length).get(10, TimeUnit.SECONDS);
            byte[] read = new byte[data.length];
            readBack.buffer().get(read);
            assertArrayEquals(data, read, "READ content");
            exposed.buffer().order(ByteOrder.nativeOrder()).putLong(4096, 5);
            assertEquals(5L, serverSide.fetchAndAdd(remote, 4096, 3).get(10, TimeUnit.SECONDS));
            assertEquals(8L, exposed.buffer().order(ByteOrder.nativeOrder()).getLong(4096));
        }
    }

    @Test
    void badOffsetsAreRefusedLocallyAndTheChannelStaysUsable() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            InetSocketAddress address = e.address();
            RegisteredBuffer exposed = e.server.allocate(4096, Access.REMOTE_READ, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC);
            e.listen(address, new Exposing(exposed));
            RdmaChannel channel = e.connect(address, (ch, m) -> { });
            RemoteBuffer remote = exposed.remote();
            RegisteredBuffer local = e.client.allocate(8192);
            assertThrows(IllegalArgumentException.class, () -> channel.write(local, 0, remote, 4000, 200));
            assertThrows(IllegalArgumentException.class, () -> channel.write(local, 0, remote, -1, 10));
            assertThrows(IllegalArgumentException.class, () -> channel.read(remote, 0, local, 8000, 500));
            assertThrows(IllegalArgumentException.class, () -> channel.fetchAndAdd(remote, 4, 1), "unaligned");
            assertThrows(IllegalArgumentException.class, () -> channel.compareAndSwap(remote, 4092, 0, 1), "past the end");
            RegisteredBuffer heapLike = e.server.allocate(64);
            assertThrows(IllegalArgumentException.class, () -> channel.write(heapLike, 0, remote, 0, 8), "other context's buffer");
            assertTrue(channel.isOpen());
            channel.write(local, 0, remote, 0, 4096).get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void revokedTokenFailsWithRemoteAccessErrorAndClosesOnlyThatChannel() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            InetSocketAddress address = e.address();
            RegisteredBuffer exposed = e.server.register(ByteBuffer.allocateDirect(4096), Access.REMOTE_WRITE);
            RegisteredBuffer other = e.server.allocate(4096, Access.REMOTE_WRITE);
            Exposing server = new Exposing(exposed);
            e.listen(address, server);
            RdmaChannel victim = e.connect(address, (ch, m) -> { });
            RdmaChannel bystander = e.connect(address, (ch, m) -> { });
            RemoteBuffer token = exposed.remote();
            exposed.close(); // revoked: the MR is deregistered
            RegisteredBuffer local = e.client.allocate(4096);
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> victim.write(local, 0, token, 0, 64).get(10, TimeUnit.SECONDS));
            RdmaOperationException cause = assertInstanceOf(RdmaOperationException.class, failed.getCause());
            assertEquals(10, cause.status(), "IBV_WC_REM_ACCESS_ERR: " + cause.getMessage());
            assertEquals("RDMA_WRITE", cause.operation());
            assertEquals(cause, victim.closeFuture().get(10, TimeUnit.SECONDS));
            assertFalse(victim.isOpen());
            ExecutionException later = assertThrows(ExecutionException.class,
                    () -> victim.write(local, 0, other.remote(), 0, 64).get(10, TimeUnit.SECONDS));
            assertTrue(later.getCause().getMessage().contains("REM_ACCESS_ERR"), later.getCause().getMessage());
            bystander.write(local, 0, other.remote(), 0, 64).get(10, TimeUnit.SECONDS);
            assertTrue(bystander.isOpen(), "the other channel is not affected");

            // The server's end of the victim's channel ends too, not closed by the server. A stream transport
            // found the fault and says so; a queue pair's responder fails silently (a class C error: no
            // completion, no event on its side), and the server's channel hears the peer's disconnect.
            RdmaChannel first = server.accepted.poll(10, TimeUnit.SECONDS);
            RdmaChannel second = server.accepted.poll(10, TimeUnit.SECONDS);
            Throwable serverSide = (Throwable) CompletableFuture.anyOf(first.closeFuture(), second.closeFuture())
                    .get(10, TimeUnit.SECONDS);
            assertNotNull(serverSide, "the server's channel ended on its own, with a cause");
            if (fabric() != Fabric.VERBS) {
                assertTrue(serverSide.getMessage().contains("the peer asked for memory it may not reach"), serverSide.getMessage());
            }
        }
    }
}
