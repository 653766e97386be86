package org.jrdma.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The reference for {@code scale}'s streaming over TCP: plain Java NIO on loopback with N connections
 * between one sending and one receiving thread, each a selector loop over all of its sockets (as a
 * jrdma context's loop is one thread over all of its channels), non-blocking, TCP_NODELAY. The sender
 * writes {@code size}-byte messages into every socket that takes them; the receiver reads and drops.
 * No protocol, no acknowledgements: what the kernel's TCP and the copies cost as the connections grow.
 */
final class NioStreams {
    private NioStreams() {
    }

    /** {@return the aggregate Gbit/s received and the process's CPU microseconds per message} */
    static double[] stream(int connections, int size, int seconds) throws IOException, InterruptedException {
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress("127.0.0.1", 0), connections);
            List<SocketChannel> clients = new ArrayList<>(connections);
            List<SocketChannel> servers = new ArrayList<>(connections);
            try {
                for (int i = 0; i < connections; i++) {
                    SocketChannel client = SocketChannel.open(listener.getLocalAddress());
                    clients.add(client);
                    servers.add(listener.accept());
                }
                return stream(clients, servers, size, seconds);
            } finally {
                for (SocketChannel channel : clients) {
                    channel.close();
                }
                for (SocketChannel channel : servers) {
                    channel.close();
                }
            }
        }
    }

    private static double[] stream(List<SocketChannel> clients, List<SocketChannel> servers, int size, int seconds)
            throws IOException, InterruptedException {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        AtomicLong received = new AtomicLong();
        long start = System.nanoTime();
        long end = start + TimeUnit.SECONDS.toNanos(seconds);
        long cpuBefore = os.getProcessCpuTime();
        Thread receiver = new Thread(() -> loop(servers, SelectionKey.OP_READ, size, end, received), "nio-receiver");
        receiver.setDaemon(true); // should the sender fail, the receiver does not keep the process alive
        receiver.start();
        loop(clients, SelectionKey.OP_WRITE, size, end, null);
        receiver.join();
        long elapsed = System.nanoTime() - start;
        long cpu = os.getProcessCpuTime() - cpuBefore;
        double messages = received.get() / (double) size;
        return new double[] {received.get() * 8.0 / elapsed, messages == 0 ? Double.NaN : cpu / 1e3 / messages};
    }

    /**
     * One side's selector loop until {@code end}, and until it moved a byte (a thread that started late on a
     * busy machine still measures something): writes whole messages, or reads and counts the bytes.
     */
    private static void loop(List<SocketChannel> sockets, int interest, int size, long end, AtomicLong received) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(size);
        try (Selector selector = Selector.open()) {
            for (SocketChannel socket : sockets) {
                socket.configureBlocking(false);
                socket.setOption(StandardSocketOptions.TCP_NODELAY, true);
                // A message's unwritten rest stays with its socket: the stream is whole messages.
                socket.register(selector, interest, interest == SelectionKey.OP_WRITE ? new int[] {0} : null);
            }
            long bytes = 0;
            while (System.nanoTime() < end || bytes == 0) {
                if (selector.select(100) == 0) {
                    continue;
                }
                for (SelectionKey key : selector.selectedKeys()) {
                    SocketChannel socket = (SocketChannel) key.channel();
                    if (received != null) {
                        for (int n; (n = socket.read(buffer.clear())) > 0;) {
                            bytes += n;
                        }
                    } else {
                        int[] written = (int[]) key.attachment();
                        for (int n = 1; n > 0;) {
                            buffer.limit(size).position(written[0]);
                            n = socket.write(buffer);
                            written[0] = (written[0] + n) % size;
                            bytes += n;
                        }
                    }
                }
                selector.selectedKeys().clear();
            }
            if (received != null) {
                received.set(bytes);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
