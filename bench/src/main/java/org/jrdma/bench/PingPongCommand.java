package org.jrdma.bench;

import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.Callable;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaMessage;
import org.jrdma.RegisteredBuffer;
import org.HdrHistogram.Histogram;
import org.jrdma.Transport;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * A newcomer's example: a server and a client in one process exchange messages over RDMA (or TCP and
 * shared memory without a device) and the round trips are timed: percentiles and average. Usage:
 * {@code pingpong [server-ip] [client-ip]} (defaults: the address of the device's RoCE v2 GID for
 * both, i.e. loopback through the device; the loopback address without one).
 */
@Command(name = "pingpong", mixinStandardHelpOptions = true, description = "a server and a client in one process exchange 64-byte messages; round trips timed (p50, p99,"
        + " p99.9, average)")
final class PingPongCommand implements Callable<Integer> {
    @Mixin
    PeerAddresses peers;

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        RdmaConfig config = RdmaConfig.fromEnvironment();
        try (RdmaContext ctx = Rdma.open(config)) {
            InetAddress serverIp = peers.server(ctx);
            InetAddress clientIp = peers.client(ctx);
            InetSocketAddress address = new InetSocketAddress(serverIp, 0);

            // Server: echo every message back from a buffer of its own.
            RegisteredBuffer reply = ctx.allocate(4096);
            var server = ctx.listen(address, (channel, message) -> {
                reply.buffer().put(message.payload());
                channel.send(reply, 0, message.length());
            });

            // Client: hand each echo to the main thread.
            SynchronousQueue<Integer> echoes = new SynchronousQueue<>();
            RdmaChannel channel = ctx.connect(server.localAddress(), clientIp, (RdmaChannel ch, RdmaMessage m) -> {
                try {
                    echoes.put(m.length());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }).get(30, TimeUnit.SECONDS);

            RegisteredBuffer request = ctx.allocate(4096);
            int size = 64;
            int rounds = 2000;
            out.printf("pingpong over %s: %d round trips of %d bytes%n", link(ctx), rounds, size);
            Histogram roundTrips = new Histogram(3);
            for (int pass = 0; pass < 2; pass++) { // the first pass warms the JIT up
                roundTrips.reset();
                for (int i = 0; i < rounds; i++) {
                    request.buffer().putInt(0, i);
                    long start = System.nanoTime();
                    channel.send(request, 0, size);
                    if (echoes.poll(10, TimeUnit.SECONDS) == null) {
                        throw new IllegalStateException("no echo within 10 s");
                    }
                    roundTrips.recordValue(System.nanoTime() - start);
                }
            }
            out.printf("round trip: p50 %.1f us, p99 %.1f us, p99.9 %.1f us, average %.1f us (%d round trips after %d"
                    + " to warm up)%n", micros(roundTrips.getValueAtPercentile(50)),
                    micros(roundTrips.getValueAtPercentile(99)), micros(roundTrips.getValueAtPercentile(99.9)),
                    roundTrips.getMean() / 1000, rounds, rounds);
            channel.close();
            server.close();
        }
        return 0;
    }

    private static double micros(long nanos) {
        return nanos / 1000.0;
    }

    /** What carries the channels, in the words of that transport: a device's port, GID and MTU only over verbs. */
    static String link(RdmaContext ctx) {
        return switch (ctx.transport()) {
            case VERBS -> ctx.device().name() + " port " + ctx.port().number() + " (gid " + ctx.gidIndex() + ", mtu "
                    + ctx.mtu() + ")";
            case SHM -> "shared memory (same host)";
            case TCP -> "TCP";
            case AUTO -> "TCP, and shared memory with peers on this host";
        };
    }

    /**
     * The IP of the selected port's GID (RoCE), needed to reach the device over rdma_cm; over TCP (no
     * RDMA device) the loopback address.
     */
    static InetAddress gidAddress(RdmaContext ctx) {
        if (ctx.transport() != Transport.VERBS) {
            return InetAddress.getLoopbackAddress();
        }
        return ctx.port().gids().stream().filter(g -> g.index() == ctx.gidIndex()).findFirst()
                .flatMap(g -> g.ip())
                .orElseThrow(() -> new IllegalStateException("the selected GID has no IP address: pass the server IP"));
    }
}
