package org.jrdma.bench;

import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
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
import picocli.CommandLine.Option;

/**
 * Push/pull key-value, as an example and a measurement: servers ({@link KvServer}, float32 sums) and
 * workers ({@link KvWorker}), each on a context (an event loop) of its own in this process. For each
 * value size, number of servers and number of workers: push, pull and PushPull with {@value #WINDOW}
 * requests in flight per worker (request i on key i % window, owned by server i % servers, the same
 * keys for every worker, as gradients are) — the aggregate MiB/s and the requests' p50/p99 — next to
 * plain RDMA WRITEs of the same size from the same number of writers to the same servers' contexts,
 * the same window: the ceiling. {@code --runs} repeats every cell and reports the median and the
 * spread. Usage: {@code kv [options] [server-ip [client-ip]]}.
 */
@Command(name = "kv", mixinStandardHelpOptions = true,
        description = "push, pull and PushPull of float32 values with 1..8 workers and 1..4 servers next to plain RDMA WRITEs")
final class KvCommand implements Callable<Integer> {
    private static final int WINDOW = 16;
    private static final List<String> OPS = List.of("push", "pull", "pushpull");

    @Mixin
    PeerAddresses peers;

    @Option(names = "--sizes", split = ",", paramLabel = "SIZE", converter = Arguments.Size.class,
            description = "value sizes, suffixes K M (default: 4K,64K,4M)")
    List<Integer> sizes = List.of(4096, 65536, 4 << 20);

    @Option(names = "--workers", split = ",", paramLabel = "N", description = "numbers of workers (default: 1,2,4,8)")
    List<Integer> workers = List.of(1, 2, 4, 8);

    @Option(names = "--servers", split = ",", paramLabel = "N", description = "numbers of servers (default: 1,2,4)")
    List<Integer> servers = List.of(1, 2, 4);

    @Option(names = "--ops", split = ",", paramLabel = "OP", description = "push, pull, pushpull (default: all)")
    List<String> ops = OPS;

    @Option(names = "--bytes", paramLabel = "SIZE", converter = Arguments.Size.class,
            description = "what each cell moves in all, split over its workers (default 64M; at least 2 windows each)")
    int bytesPerCell = 64 << 20;

    @Option(names = "--without-slots", description = "servers give no write slots: every push travels in a PUSH message")
    boolean withoutSlots;

    @Option(names = "--runs", paramLabel = "N", description = "times each cell runs (default 1): median and spread")
    int runs = 1;

    @Override
    public Integer call() throws Exception {
        for (String op : ops) {
            if (!OPS.contains(op)) {
                throw new IllegalArgumentException("--ops: " + op + " is not one of " + OPS);
            }
        }
        int maxWorkers = workers.stream().mapToInt(Integer::intValue).max().orElse(1);
        int maxServers = servers.stream().mapToInt(Integer::intValue).max().orElse(1);
        if (workers.stream().anyMatch(w -> w < 1 || w > 64) || servers.stream().anyMatch(s -> s < 1 || s > 16) || runs < 1) {
            throw new IllegalArgumentException("workers 1..64, servers 1..16, runs 1.. (got " + workers + ", " + servers + ", " + runs + ")");
        }
        PrintStream out = System.out;
        List<RdmaContext> contexts = new ArrayList<>();
        try {
            List<RdmaContext> serverContexts = new ArrayList<>();
            List<RdmaContext> workerContexts = new ArrayList<>();
            for (int i = 0; i < maxServers + maxWorkers; i++) {
                RdmaContext ctx = Rdma.open();
                contexts.add(ctx);
                (i < maxServers ? serverContexts : workerContexts).add(ctx);
            }
            RdmaContext first = contexts.get(0);
            InetAddress serverIp = peers.server(first);
            InetAddress clientIp = peers.client(first);
            List<KvServer> kvServers = new ArrayList<>();
            List<RdmaServer> sinks = new ArrayList<>();
            for (RdmaContext ctx : serverContexts) {
                kvServers.add(KvServer.listen(ctx, new InetSocketAddress(serverIp, 0), MergeFunction.float32Sum(),
                        withoutSlots ? KvOptions.DEFAULTS.withoutSlots() : KvOptions.DEFAULTS));
                sinks.add(ctx.listen(new InetSocketAddress(serverIp, 0), (ch, m) -> { }));
            }
            out.printf("push/pull over %s (%s); each server and worker on a context of its own; %d requests in flight per"
                    + " worker; %d run(s) per cell%n", first.transport(), first.transport().name().equals("VERBS")
                    ? first.device().name() + " port " + first.port().number() + ", mtu " + first.mtu() : "no device",
                    WINDOW, runs);
            out.printf("%10s %7s %7s %9s %10s %10s %12s %18s %12s %8s%n", "bytes", "servers", "workers", "op", "p50 us",
                    "p99 us", "MiB/s", "(min-max)", "write MiB/s", "vs write");
            int failed = 0;
            for (int size : sizes) {
                for (int s : servers) {
                    List<InetSocketAddress> addresses = kvServers.subList(0, s).stream().map(KvServer::localAddress).toList();
                    for (int w : workers) {
                        Cell cell = new Cell(size, s, w, Math.max(2 * WINDOW, bytesPerCell / size / w));
                        try {
                            measure(cell, workerContexts.subList(0, w), addresses, serverContexts, sinks, clientIp, out);
                        } catch (Exception e) { // one line, and on to the next cell: its channels are new ones
                            failed++;
                            out.printf("%10d %7d %7d    FAILED: %s%n", size, s, w, BenchCommand.causeChain(e));
                        }
                    }
                }
            }
            kvServers.forEach(KvServer::close);
            sinks.forEach(RdmaServer::close);
            if (failed > 0) {
                System.err.println("kv: " + failed + " cell(s) failed (on a slow fabric such as Soft-RoCE under"
                        + " emulation raise RDMA_TIMEOUT, docs/configuration.md)");
                return 1;
            }
        } finally {
            contexts.forEach(RdmaContext::close);
        }
        return 0;
    }

    /** A point of the matrix: value size, servers, workers and the requests each worker issues. */
    private record Cell(int size, int servers, int workers, int requests) {
    }

    private void measure(Cell cell, List<RdmaContext> workerContexts, List<InetSocketAddress> addresses,
                         List<RdmaContext> serverContexts, List<RdmaServer> sinks, InetAddress clientIp, PrintStream out)
            throws Exception {
        long[] keys = new long[WINDOW];
        long range = Long.divideUnsigned(-1L, cell.servers()); // KeySlicer.evenRanges: server s owns [s * range, ...)
        for (int i = 0; i < WINDOW; i++) {
            keys[i] = (i % cell.servers()) * range + ((long) cell.size() << 8) + i;
        }
        List<KvIssuers> issuers = new ArrayList<>();
        try {
            for (RdmaContext ctx : workerContexts) {
                issuers.add(new KvIssuers(ctx, KvWorker.connect(ctx, addresses, clientIp), keys, cell.size(), WINDOW));
            }
            for (KvIssuers issuer : issuers) {
                issuer.createKeys(); // every key exists (and has its write slot) before the clock runs
            }
            double[] write = runs(() -> writes(cell, workerContexts, serverContexts, sinks, clientIp));
            for (String op : ops) {
                KvLoad.Outcome[] last = new KvLoad.Outcome[1];
                double[] rates = runs(() -> {
                    List<KvLoad.Issuer> load = issuers.stream().map(i -> i.issuer(op)).toList();
                    KvLoad.run(load, Math.min(4 * WINDOW, cell.requests()), WINDOW, cell.size()); // warm-up, not reported
                    last[0] = KvLoad.run(load, cell.requests(), WINDOW, cell.size());
                    return last[0].mibPerSecond();
                });
                out.printf("%10d %7d %7d %9s %10.1f %10.1f %12.1f %18s %12.1f %7.2fx%n", cell.size(), cell.servers(),
                        cell.workers(), op, last[0].p50Micros(), last[0].p99Micros(), median(rates), spread(rates),
                        median(write), median(rates) / median(write));
            }
        } finally {
            issuers.forEach(KvIssuers::close);
        }
    }

    private interface Measurement {
        double mibPerSecond() throws Exception;
    }

    private double[] runs(Measurement measurement) throws Exception {
        double[] results = new double[runs];
        for (int r = 0; r < runs; r++) {
            results[r] = measurement.mibPerSecond();
        }
        Arrays.sort(results);
        return results;
    }

    private static double median(double[] sorted) {
        return sorted[sorted.length / 2];
    }

    private static String spread(double[] sorted) {
        return sorted.length == 1 ? "" : String.format("(%.1f-%.1f)", sorted[0], sorted[sorted.length - 1]);
    }

    /** The ceiling: as many writers as workers, writer w on worker w's context to server w % servers's context. */
    private static double writes(Cell cell, List<RdmaContext> workerContexts, List<RdmaContext> serverContexts,
                                 List<RdmaServer> sinks, InetAddress clientIp) throws Exception {
        List<RdmaChannel> channels = new ArrayList<>();
        List<RegisteredBuffer> buffers = new ArrayList<>();
        Map<Integer, RemoteBuffer> targets = new HashMap<>();
        try {
            List<KvLoad.Issuer> load = new ArrayList<>();
            for (int w = 0; w < cell.workers(); w++) {
                int s = w % cell.servers();
                RegisteredBuffer target = serverContexts.get(s).allocate(cell.size() * WINDOW, Access.REMOTE_WRITE);
                buffers.add(target);
                targets.put(w, target.remote());
                RdmaContext ctx = workerContexts.get(w);
                RdmaChannel channel = ctx.connect(sinks.get(s).localAddress(), clientIp, (ch, m) -> { }).get(30, TimeUnit.SECONDS);
                channels.add(channel);
                RegisteredBuffer source = ctx.allocate(cell.size());
                buffers.add(source);
                load.add(writer(channel, source, targets.get(w), cell.size()));
            }
            KvLoad.run(load, Math.min(4 * WINDOW, cell.requests()), WINDOW, cell.size());
            return KvLoad.run(load, cell.requests(), WINDOW, cell.size()).mibPerSecond();
        } finally {
            channels.forEach(RdmaChannel::close);
            buffers.forEach(RegisteredBuffer::close);
        }
    }

    private static KvLoad.Issuer writer(RdmaChannel channel, RegisteredBuffer source, RemoteBuffer target, int size) {
        @SuppressWarnings("unchecked")
        CompletableFuture<Void>[] inFlight = new CompletableFuture[WINDOW];
        return new KvLoad.Issuer() {
            @Override
            public long issue(int i) {
                inFlight[i % WINDOW] = channel.write(source, 0, target, (long) (i % WINDOW) * size, size);
                return i % WINDOW;
            }

            @Override
            public void complete(long handle) throws Exception {
                inFlight[(int) handle].get(60, TimeUnit.SECONDS);
            }
        };
    }
}
