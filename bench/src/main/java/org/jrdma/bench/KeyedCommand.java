package org.jrdma.bench;

import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.Callable;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jrdma.Access;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaServer;
import org.jrdma.RegisteredBuffer;
import org.jrdma.keyed.Fetched;
import org.jrdma.keyed.KeyedChannel;
import org.jrdma.keyed.KeyedOptions;
import org.jrdma.keyed.KeyedStore;
import org.jrdma.keyed.TransferKey;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * Keyed transfers, as an example and a measurement: a producer publishes values of 4 KiB, 64 KiB and
 * 4 MiB in a {@link KeyedStore}, a consumer on a channel to it fetches them into its own registered
 * memory. Reports the latency of one fetch at a time (p50, p99) and the throughput with 16 fetches in
 * flight. Usage: {@code keyed [server-ip [client-ip]]} (default: the device's RoCE v2 GID address for
 * both, i.e. loopback through the device).
 */
@Command(name = "keyed", mixinStandardHelpOptions = true, description = "keyed transfers (4 KiB, 64 KiB, 4 MiB): fetch latency and throughput")
final class KeyedCommand implements Callable<Integer> {
    private static final int[] SIZES = {4096, 65536, 4 << 20};
    private static final int WINDOW = 16;

    @Mixin
    PeerAddresses peers;

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        try (RdmaContext ctx = Rdma.open()) {
            InetAddress serverIp = peers.server(ctx);
            InetAddress clientIp = peers.client(ctx);
            KeyedStore store = new KeyedStore();
            RdmaServer server = ctx.listen(new InetSocketAddress(serverIp, 0),
                    KeyedChannel.accepting(ctx, store, KeyedOptions.DEFAULTS, producer -> { }));
            RdmaChannel channel = ctx.connect(server.localAddress(), clientIp, (ch, m) -> { }).get(30, TimeUnit.SECONDS);
            KeyedChannel consumer = KeyedChannel.attach(ctx, channel, null, KeyedOptions.DEFAULTS);
            out.printf("keyed fetch over %s; latency: one fetch at a time; throughput: %d in flight%n",
                    PingPongCommand.link(ctx), WINDOW);
            warmUp(ctx, store, consumer, out);
            out.printf("%10s %10s %10s %10s %12s%n", "bytes", "fetches", "p50 us", "p99 us", "MiB/s");
            for (int size : SIZES) {
                TransferKey key = new TransferKey("value-" + size, 1);
                RegisteredBuffer value = ctx.allocate(size);
                store.publish(key, value, new byte[] {1, 2, 3, 4});
                RegisteredBuffer[] destinations = new RegisteredBuffer[WINDOW];
                for (int i = 0; i < WINDOW; i++) {
                    destinations[i] = ctx.allocate(size, Access.REMOTE_WRITE);
                }
                int iterations = size >= (1 << 20) ? 100 : 1000;
                long[] nanos = latencies(consumer, key, destinations[0], iterations);
                double mibPerSecond = throughput(consumer, key, destinations, iterations * 2, size);
                Arrays.sort(nanos);
                out.printf("%10d %10d %10.1f %10.1f %12.1f%n", size, iterations, nanos[nanos.length / 2] / 1000.0,
                        nanos[Math.min(nanos.length - 1, (int) (nanos.length * 0.99))] / 1000.0, mibPerSecond);
                store.unpublish(key);
                value.close();
                for (RegisteredBuffer d : destinations) {
                    d.close();
                }
            }
            consumer.close();
            server.close();
        }
        return 0;
    }

    /**
     * Small fetches until the JIT has compiled the paths (under emulation the interpreter is ten
     * times slower): rounds of 1000 until a round is no faster than the one before.
     */
    private static void warmUp(RdmaContext ctx, KeyedStore store, KeyedChannel consumer, PrintStream out) throws Exception {
        TransferKey key = new TransferKey("warm-up", 0);
        RegisteredBuffer value = ctx.allocate(4096);
        store.publish(key, value, new byte[0]);
        RegisteredBuffer[] destinations = new RegisteredBuffer[WINDOW];
        for (int i = 0; i < WINDOW; i++) {
            destinations[i] = ctx.allocate(4096, Access.REMOTE_WRITE);
        }
        long start = System.nanoTime();
        long previous = Long.MAX_VALUE;
        int rounds = 0;
        for (; rounds < 20; rounds++) {
            long round = System.nanoTime();
            latencies(consumer, key, destinations[0], 500);
            throughput(consumer, key, destinations, 500, 4096);
            long took = System.nanoTime() - round;
            if (took >= previous * 0.95 && rounds >= 2) {
                break;
            }
            previous = took;
        }
        out.printf("JIT warm-up: %d rounds of 1000 fetches in %.1f s%n", rounds + 1, (System.nanoTime() - start) / 1e9);
        store.unpublish(key);
        value.close();
        for (RegisteredBuffer d : destinations) {
            d.close();
        }
    }

    private static long[] latencies(KeyedChannel consumer, TransferKey key, RegisteredBuffer destination, int count)
            throws Exception {
        long[] nanos = new long[count];
        for (int i = 0; i < count; i++) {
            long start = System.nanoTime();
            Fetched got = consumer.fetch(key, destination).get(30, TimeUnit.SECONDS);
            nanos[i] = System.nanoTime() - start;
            if (got.length() != destination.length()) {
                throw new IllegalStateException("fetched " + got.length() + " bytes of " + destination.length());
            }
        }
        return nanos;
    }

    private static double throughput(KeyedChannel consumer, TransferKey key, RegisteredBuffer[] destinations, int count,
                                     int size) throws Exception {
        ArrayDeque<CompletableFuture<Fetched>> window = new ArrayDeque<>();
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            if (window.size() == destinations.length) {
                window.poll().get(30, TimeUnit.SECONDS);
            }
            window.add(consumer.fetch(key, destinations[i % destinations.length]));
        }
        while (!window.isEmpty()) {
            window.poll().get(30, TimeUnit.SECONDS);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return count * (double) size / (1024.0 * 1024.0) / seconds;
    }
}
