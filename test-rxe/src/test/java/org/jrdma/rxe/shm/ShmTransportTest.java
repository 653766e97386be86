package org.jrdma.rxe.shm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jrdma.ChannelHandler;
import org.jrdma.ConnectionRejectedException;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaMessage;
import org.jrdma.RegisteredBuffer;
import org.jrdma.RemoteBuffer;
import org.jrdma.Transport;
import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.MessagingContract;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What only shared memory has: that a channel really goes through the rings (sealed memory files
 * handed over a Unix-domain socket: nothing appears in /dev/shm), which peers get it (auto on both ends; TCP when one end
 * will not), refusals when transport shm meets a peer that cannot share, and two processes.
 */
@Tag("shm")
class ShmTransportTest {
    private static RdmaContext open(Transport transport) {
        return Rdma.open(RdmaConfig.builder().transport(transport).build());
    }

    private static long ringsInDevShm() throws Exception {
        try (Stream<Path> files = Files.list(Path.of("/dev/shm"))) {
            return files.filter(p -> p.getFileName().toString().startsWith("jrdma-")).count();
        }
    }

    /** Connects a client of one transport to a server of another; returns the client's channel. */
    private static RdmaChannel connect(RdmaContext server, RdmaContext client, ChannelHandler serverHandler) throws Exception {
        InetSocketAddress address = Fabric.SHM.nextAddress();
        server.listen(address, serverHandler);
        return client.connect(address, (ch, m) -> { }).get(30, TimeUnit.SECONDS);
    }

    @Test
    void twoSharedMemoryContextsTalkThroughTheRingsAndLeaveNoNameBehind() throws Exception {
        long before = ringsInDevShm();
        try (RdmaContext server = open(Transport.SHM); RdmaContext client = open(Transport.SHM)) {
            CompletableFuture<RdmaChannel> accepted = new CompletableFuture<>();
            BlockingQueue<Integer> lengths = new LinkedBlockingQueue<>();
            RdmaChannel channel = connect(server, client, new ChannelHandler() {
                @Override
                public void onOpen(RdmaChannel ch) {
                    accepted.complete(ch);
                }

                @Override
                public void onMessage(RdmaChannel ch, RdmaMessage message) {
                    lengths.add(message.length());
                }
            });
            assertTrue(channel.toString().contains("shared memory"), channel.toString());
            assertTrue(accepted.get(30, TimeUnit.SECONDS).toString().contains("shared memory"));
            assertEquals(Transport.SHM, client.transport());
            RegisteredBuffer out = client.allocate(4 << 20);
            for (int size : new int[] {1, 4000, 70_000, 4 << 20}) {
                channel.send(out, 0, size).get(30, TimeUnit.SECONDS);
                assertEquals(size, lengths.poll(30, TimeUnit.SECONDS));
            }
            assertEquals(before, ringsInDevShm(), "the rings have no name in /dev/shm");
        }
    }

    @Test
    void autoSharesMemoryWithAPeerThatCanAndUsesTcpWithOneThatWillNot() throws Exception {
        try (RdmaContext auto = open(Transport.AUTO); RdmaContext otherAuto = open(Transport.AUTO);
             RdmaContext tcp = open(Transport.TCP)) {
            assertEquals(Transport.TCP, auto.transport(), "auto without a device: TCP, sharing memory where it can");
            assertTrue(connect(auto, otherAuto, (ch, m) -> { }).toString().contains("shared memory"));
            RdmaChannel overTcp = connect(tcp, auto, (ch, m) -> { });
            assertFalse(overTcp.toString().contains("shared memory"), overTcp.toString());
            assertTrue(overTcp.toString().contains("tcp "), overTcp.toString());
        }
    }

    @Test
    void transportShmRefusesAPeerThatCannotShareMemoryEitherWay() throws Exception {
        try (RdmaContext shm = open(Transport.SHM); RdmaContext tcp = open(Transport.TCP)) {
            InetSocketAddress shmServer = Fabric.SHM.nextAddress();
            shm.listen(shmServer, (ch, m) -> { });
            ExecutionException offeredNone = assertThrows(ExecutionException.class,
                    () -> tcp.connect(shmServer, (ch, m) -> { }).get(30, TimeUnit.SECONDS));
            ConnectionRejectedException rejected = assertInstanceOf(ConnectionRejectedException.class, offeredNone.getCause());
            assertTrue(rejected.reason().startsWith("no shared memory"), rejected.reason());

            InetSocketAddress tcpServer = Fabric.TCP.nextAddress();
            tcp.listen(tcpServer, (ch, m) -> { });
            ExecutionException notTaken = assertThrows(ExecutionException.class,
                    () -> shm.connect(tcpServer, (ch, m) -> { }).get(30, TimeUnit.SECONDS));
            rejected = assertInstanceOf(ConnectionRejectedException.class, notTaken.getCause());
            assertTrue(rejected.reason().startsWith("no shared memory"), rejected.reason());
        }
    }

    /** A server in another JVM: messages of every size echoed, and one-sided writes and reads of its memory. */
    @Test
    void twoProcessesExchangeMessagesAndReachEachOthersMemory() throws Exception {
        int port = Fabric.SHM.nextAddress().getPort();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process peer = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), ShmPeer.class.getName(),
                Integer.toString(port)).redirectErrorStream(true).start();
        try (RdmaContext client = open(Transport.SHM)) {
            BufferedReader output = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8));
            assertEquals("listening", output.readLine());
            BlockingQueue<byte[]> echoes = new LinkedBlockingQueue<>();
            CompletableFuture<RemoteBuffer> token = new CompletableFuture<>();
            RdmaChannel channel = client.connect(new InetSocketAddress("127.0.0.1", port), new ChannelHandler() {
                @Override
                public void onMessage(RdmaChannel ch, RdmaMessage message) {
                    byte[] bytes = new byte[message.length()];
                    message.payload().get(bytes);
                    echoes.add(bytes);
                }

                @Override
                public void onToken(RdmaChannel ch, RemoteBuffer remote) {
                    token.complete(remote);
                }
            }).get(30, TimeUnit.SECONDS);
            assertTrue(channel.toString().contains("shared memory"), channel.toString());
            RegisteredBuffer out = client.allocate(2 << 20);
            for (int size : List.of(1, 64, 4080, 4081, 65536, 2 << 20)) {
                byte[] data = MessagingContract.pattern(size, size);
                out.buffer().put(0, data);
                channel.send(out, 0, size).get(30, TimeUnit.SECONDS);
                assertArrayEquals(data, echoes.poll(30, TimeUnit.SECONDS), "echo of " + size + " bytes");
            }
            RemoteBuffer remote = token.get(30, TimeUnit.SECONDS);
            byte[] data = MessagingContract.pattern(65536, 7);
            out.buffer().put(0, data);
            channel.write(out, 0, remote, 0, 65536).get(30, TimeUnit.SECONDS);
            RegisteredBuffer in = client.allocate(65536);
            channel.read(remote, 0, in, 0, 65536).get(30, TimeUnit.SECONDS);
            byte[] back = new byte[65536];
            in.buffer().get(0, back);
            assertArrayEquals(data, back, "written into the other process's memory and read back");
            long written = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN).getLong(8);
            assertEquals(written, channel.fetchAndAdd(remote, 8, 5).get(30, TimeUnit.SECONDS), "the atomic saw the written value");
        } finally {
            peer.getOutputStream().close();
            assertTrue(peer.waitFor(60, TimeUnit.SECONDS), "the peer process ends");
        }
        assertEquals(0, peer.exitValue());
    }
}
