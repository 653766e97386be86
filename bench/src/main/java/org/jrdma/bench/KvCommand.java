package org.jrdma.bench;

import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.Callable;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jrdma.Access;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaServer;
import org.jrdma.RegisteredBuffer;
import org.jrdma.RemoteBuffer;
import org.jrdma.kv.KvOptions;
import org.jrdma.kv.KvServer;
import org.jrdma.kv.KvWorker;
import org.jrdma.kv.MergeFunction;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * Push/pull key-value, as an example and a measurement: a {@link KvServer} and a {@link KvWorker} on
 * one context, values of 4 KiB, 64 KiB and 4 MiB (float32 sums). Per size: the latency of one push and
 * of one pull at a time (p50, p99), the throughput with {@value #WINDOW} requests in flight (each on a
 * key of its own, so pushes of 64 KiB and more go into their write slots), and next to them, between the
 * same two endpoints, plain RDMA WRITEs of the same size with the same window: the ceiling.
 * Usage: {@code kv [server-ip [client-ip]]} (default: the device's RoCE v2 GID address for both).
 */
@Command(name = "kv", mixinStandardHelpOptions = true, description = "push/pull of float32 values next to plain RDMA WRITEs of the same size")
final class KvCommand implements Callable<Integer> {
    private static final int[] SIZES = {4096, 65536, 4 << 20};
    private static final int WINDOW = 16;

    private interface Request {
        long issue(int slot) throws Exception;
    }

    @Mixin
    PeerAddresses peers;

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        try (RdmaContext ctx = Rdma.open()) {
            InetAddress serverIp = peers.server(ctx);
            InetAddress clientIp = peers.client(ctx);
            KvServer server = KvServer.listen(ctx, new InetSocketAddress(serverIp, 0), MergeFunction.float32Sum(), KvOptions.DEFAULTS);
            KvWorker worker = KvWorker.connect(ctx, List.of(server.localAddress()), clientIp);
            RdmaServer sink = ctx.listen(new InetSocketAddress(serverIp, 0), (ch, m) -> { });
            RdmaChannel raw = ctx.connect(sink.localAddress(), clientIp, (ch, m) -> { }).get(30, TimeUnit.SECONDS);
            out.printf("push/pull on %s port %d (mtu %d); latency: one request at a time; throughput: %d in flight%n",
                    ctx.device().name(), ctx.port().number(), ctx.mtu(), WINDOW);
            out.printf("%10s %8s %10s %10s %12s%n", "bytes", "op", "p50 us", "p99 us", "Gbit/s");
            for (int size : SIZES) {
                measure(ctx, worker, raw, size, out);
            }
            worker.close();
            server.close();
            raw.close();
            sink.close();
        }
        return 0;
    }

    private static void measure(RdmaContext ctx, KvWorker worker, RdmaChannel raw, int size, PrintStream out) throws Exception {
        long[][] keys = new long[WINDOW][];
        RegisteredBuffer[] values = new RegisteredBuffer[WINDOW];
        RegisteredBuffer[] into = new RegisteredBuffer[WINDOW];
        int[] length = {size};
        for (int i = 0; i < WINDOW; i++) {
            keys[i] = new long[] {((long) size << 20) + i};
            values[i] = ctx.allocate(size);
            into[i] = ctx.allocate(size, Access.REMOTE_WRITE);
            worker.waitFor(worker.push(keys[i], values[i], length)); // every key exists (and has its slot) from here on
        }
        RegisteredBuffer target = ctx.allocate(size * WINDOW, Access.REMOTE_WRITE);
        RemoteBuffer remote = target.remote();
        int iterations = size >= (1 << 20) ? 20 : 500;
        Request push = i -> worker.push(keys[i % WINDOW], values[i % WINDOW], length);
        Request pull = i -> worker.pull(keys[i % WINDOW], into[i % WINDOW], length.clone());
        // Small sizes: a first pass warms the JIT up and is not reported; large ones come after them.
        for (int pass = size >= (1 << 20) ? 1 : 0; pass < 2; pass++) {
            boolean report = pass == 1;
            row(out, report, size, "push", latencies(worker, push, iterations), throughput(worker, push, iterations * 2, size));
            row(out, report, size, "pull", latencies(worker, pull, iterations), throughput(worker, pull, iterations * 2, size));
            row(out, report, size, "write", writeLatencies(raw, values[0], remote, size, iterations),
                    writeThroughput(raw, values, remote, size, iterations * 2));
        }
        for (int i = 0; i < WINDOW; i++) {
            values[i].close();
            into[i].close();
        }
        target.close();
    }

    private static void row(PrintStream out, boolean report, int size, String op, long[] nanos, double gbits) {
        if (!report) {
            return;
        }
        Arrays.sort(nanos);
        out.printf("%10d %8s %10.1f %10.1f %12.2f%n", size, op, nanos[nanos.length / 2] / 1000.0,
                nanos[Math.min(nanos.length - 1, (int) (nanos.length * 0.99))] / 1000.0, gbits);
    }

    private static long[] latencies(KvWorker worker, Request request, int count) throws Exception {
        long[] nanos = new long[count];
        for (int i = 0; i < count; i++) {
            long start = System.nanoTime();
            worker.waitFor(request.issue(i));
            nanos[i] = System.nanoTime() - start;
        }
        return nanos;
    }

    private static double throughput(KvWorker worker, Request request, int count, int size) throws Exception {
        ArrayDeque<Long> window = new ArrayDeque<>();
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            if (window.size() == WINDOW) {
                worker.waitFor(window.poll());
            }
            window.add(request.issue(i));
        }
        while (!window.isEmpty()) {
            worker.waitFor(window.poll());
        }
        return count * (double) size * 8 / ((System.nanoTime() - start) / 1e9) / 1e9;
    }

    /** One RDMA WRITE at a time: from posting to its completion (one way plus the device's ACK). */
    private static long[] writeLatencies(RdmaChannel raw, RegisteredBuffer source, RemoteBuffer remote, int size, int count)
            throws Exception {
        long[] nanos = new long[count];
        for (int i = 0; i < count; i++) {
            long start = System.nanoTime();
            raw.write(source, 0, remote, 0, size).get(30, TimeUnit.SECONDS);
            nanos[i] = System.nanoTime() - start;
        }
        return nanos;
    }

    private static double writeThroughput(RdmaChannel raw, RegisteredBuffer[] sources, RemoteBuffer remote, int size, int count)
            throws Exception {
        ArrayDeque<CompletableFuture<Void>> window = new ArrayDeque<>();
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            if (window.size() == WINDOW) {
                window.poll().get(30, TimeUnit.SECONDS);
            }
            window.add(raw.write(sources[i % WINDOW], 0, remote, (long) (i % WINDOW) * size, size));
        }
        while (!window.isEmpty()) {
            window.poll().get(30, TimeUnit.SECONDS);
        }
        return count * (double) size * 8 / ((System.nanoTime() - start) / 1e9) / 1e9;
    }
}
