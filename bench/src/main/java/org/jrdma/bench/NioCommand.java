package org.jrdma.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code nio}: the reference for the TCP transport — plain Java NIO over loopback, a server thread and
 * a client thread with blocking socket channels (TCP_NODELAY), no protocol: {@code nio_lat} is a
 * ping-pong of N-byte messages (one-way = round trip / 2, as send_lat), {@code nio_bw} streams N-byte
 * messages and stops the clock at the server's one-byte acknowledgement of the last (as send_bw,
 * whose sends complete once the peer has them). Run next to {@code RDMA_TRANSPORT=tcp bench}
 * (docs/performance.md).
 */
@Command(name = "nio", mixinStandardHelpOptions = true,
        description = "plain Java NIO ping-pong and streaming on loopback: the reference for the TCP transport")
final class NioCommand implements Callable<Integer> {
    @Option(names = "--sizes", split = ",", paramLabel = "SIZE", converter = Arguments.Size.class,
            description = "message sizes, 1..1G, suffixes K M G (default: 64,4K,64K,1M)")
    List<Integer> sizes = List.of(64, 4096, 65536, 1 << 20);

    @Option(names = "--iters", paramLabel = "N", converter = Arguments.Iterations.class,
            description = "timed iterations per case (default 1000; fewer for large sizes, as bench)")
    int iterations = 1000;

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress("127.0.0.1", 0));
            out.println("plain Java NIO on loopback: blocking socket channels, TCP_NODELAY, one thread per side");
            // A first pass of every case warms the JIT up; the second is measured.
            for (int pass = 0; pass < 2; pass++) {
                if (pass == 1) {
                    Report.header(out);
                }
                for (int size : sizes) {
                    int latencyIterations = BenchClient.cappedIterations(iterations, size, true);
                    int bandwidthIterations = BenchClient.cappedIterations(iterations, size, false);
                    Result latency = pingPong(listener, size, Math.min(200, latencyIterations), latencyIterations);
                    Result bandwidth = stream(listener, size, bandwidthIterations);
                    if (pass == 1) {
                        Report.row(out, latency);
                        Report.row(out, bandwidth);
                    }
                }
            }
        }
        return 0;
    }

    private static Result pingPong(ServerSocketChannel listener, int size, int warmup, int iterations) throws Exception {
        Histogram histogram = new Histogram(3);
        ByteBuffer buffer = ByteBuffer.allocateDirect(size);
        try (SocketChannel client = connect(listener)) {
            Thread echo = serve(listener, size, (server, in) -> {
                while (readFully(server, in)) {
                    in.flip();
                    writeFully(server, in);
                    in.clear();
                }
            });
            for (int i = 0; i < warmup + iterations; i++) {
                long start = System.nanoTime();
                buffer.clear();
                writeFully(client, buffer);
                buffer.clear();
                readFully(client, buffer);
                if (i >= warmup) {
                    histogram.recordValue((System.nanoTime() - start) / 2);
                }
            }
            client.shutdownOutput();
            echo.join();
        }
        return Result.latency("nio_lat", size, histogram);
    }

    private static Result stream(ServerSocketChannel listener, int size, int iterations) throws Exception {
        ByteBuffer buffer = ByteBuffer.allocateDirect(size);
        try (SocketChannel client = connect(listener)) {
            Thread sink = serve(listener, size, (server, in) -> {
                for (int i = 0; i < iterations; i++) {
                    in.clear();
                    readFully(server, in);
                }
                writeFully(server, ByteBuffer.allocate(1));
            });
            long start = System.nanoTime();
            for (int i = 0; i < iterations; i++) {
                buffer.clear();
                writeFully(client, buffer);
            }
            readFully(client, ByteBuffer.allocate(1));
            long nanos = System.nanoTime() - start;
            sink.join();
            return Result.bandwidth("nio_bw", size, iterations, nanos);
        }
    }

    private interface Server {
        void run(SocketChannel server, ByteBuffer in) throws IOException;
    }

    private static SocketChannel connect(ServerSocketChannel listener) throws IOException {
        SocketChannel client = SocketChannel.open(listener.getLocalAddress());
        client.setOption(StandardSocketOptions.TCP_NODELAY, true);
        return client;
    }

    private static Thread serve(ServerSocketChannel listener, int size, Server body) throws IOException {
        SocketChannel server = listener.accept();
        server.setOption(StandardSocketOptions.TCP_NODELAY, true);
        Thread thread = new Thread(() -> {
            try (server) {
                body.run(server, ByteBuffer.allocateDirect(size));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, "nio-server");
        thread.start();
        return thread;
    }

    /** Reads until the buffer is full; false at the end of the stream. */
    private static boolean readFully(SocketChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                return false;
            }
        }
        return true;
    }

    private static void writeFully(SocketChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }
}
