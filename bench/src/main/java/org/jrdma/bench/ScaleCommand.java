package org.jrdma.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import org.jrdma.ChannelHandler;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaMessage;
import org.jrdma.RdmaServer;
import org.jrdma.RegisteredBuffer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code scale}: what many channels cost. Two contexts of this JVM (a server and a client, from the
 * environment's configuration) open a burst of N channels between them, stream messages over all
 * of them at once, and close them again, for each N asked for, one burst after the other (as a
 * server sees peers come and go). Per burst: the set-up rate, the process's resident memory and
 * open sockets, event fds and memfds before, with the channels open and after they closed, and the
 * aggregate throughput and CPU per message while they stream.
 */
@Command(name = "scale", mixinStandardHelpOptions = true,
        description = "set-up rate, memory, throughput and CPU against the number of channels")
final class ScaleCommand implements Callable<Integer> {
    @Option(names = "--channels", split = ",", paramLabel = "N",
            description = "channel counts, one burst each, in this order (default 1,8,64,512)")
    List<Integer> counts = List.of(1, 8, 64, 512);

    @Option(names = "--size", paramLabel = "BYTES", description = "message size while streaming (default 65536)")
    int size = 65536;

    @Option(names = "--window", paramLabel = "N", description = "messages in flight per channel (default 2)")
    int window = 2;

    @Option(names = "--seconds", paramLabel = "S", converter = Arguments.Seconds.class,
            description = "streaming time per burst (default 3)")
    int seconds = 3;

    @Option(names = "--connecting", paramLabel = "N",
            description = "connects in flight at a time (default: half the server's maxPendingConnections, which"
                    + " refuses connection requests beyond it)")
    int connecting;

    @Option(names = "--active", paramLabel = "N",
            description = "channels of each burst that stream (default: all); the others stay open and idle")
    int active;

    @Option(names = "--nio", description = "also stream over plain Java NIO on loopback with as many connections, after"
            + " each burst (NioStreams: the reference for RDMA_TRANSPORT=tcp)")
    boolean nio;

    @Option(names = "--csv", paramLabel = "FILE", description = "also write the rows as CSV")
    Path csv;

    @Option(names = "--plot", paramLabel = "DIR",
            description = "draw memory, set-up rate, throughput and CPU against the channel count (PNG)")
    Path plot;

    @Option(names = "--label", paramLabel = "NAME", description = "this run's name in the charts (default: this run)")
    String label = "this run";

    @Option(names = "--compare", paramLabel = "NAME=CSV", description = "an earlier run's --csv, drawn beside this one")
    Map<String, Path> compare = new LinkedHashMap<>();

    @Option(names = "--only-plot", description = "run nothing: draw the --compare runs into --plot")
    boolean onlyPlot;

    /** One burst's figures. */
    record Row(int channels, double setupPerSecond, long rssBefore, long rssOpen, long rssStreamed, long rssClosed,
               int fdsBefore, int fdsOpen, int fdsClosed, double gbitPerSecond, double cpuMicrosPerMessage) {
        /** Resident memory per channel pair once open, before any traffic. */
        long bytesPerChannelPair() {
            return (rssOpen - rssBefore) / channels;
        }

        /** Resident memory per channel pair after the streaming, the channels still open. */
        long bytesPerChannelPairStreamed() {
            return (rssStreamed - rssBefore) / channels;
        }
    }

    @Override
    public Integer call() throws Exception {
        for (int n : counts) {
            if (n < 1 || n > 100_000) {
                throw new IllegalArgumentException("--channels: " + n + " is out of range 1..100000");
            }
        }
        if (size < 1 || window < 1) {
            throw new IllegalArgumentException("--size and --window must be at least 1");
        }
        if (csv != null) {
            Files.writeString(csv, ""); // a path that cannot be written fails now, not after the run
        }
        Map<String, List<Row>> runs = new LinkedHashMap<>();
        for (Map.Entry<String, Path> earlier : compare.entrySet()) {
            runs.put(earlier.getKey(), readCsv(earlier.getValue()));
        }
        if (onlyPlot) {
            if (plot == null || runs.isEmpty()) {
                throw new IllegalArgumentException("--only-plot needs --plot and at least one --compare");
            }
            System.out.println("charts: " + ScaleCharts.draw(runs, plot));
            return 0;
        }
        PrintStream out = System.out;
        RdmaConfig config = RdmaConfig.fromEnvironment();
        if (connecting < 1) {
            connecting = Math.max(1, config.maxPendingConnections() / 2);
        }
        List<Row> rows = new ArrayList<>();
        try (RdmaContext server = Rdma.open(config); RdmaContext client = Rdma.open(config)) {
            BenchCommand.emulationNotice(server, out);
            out.printf("scale over %s: bursts of channels between two contexts of one JVM (%d connecting at a time), %d B"
                    + " messages, %d in flight per channel, %d s each%s%n", PingPongCommand.link(server), connecting, size,
                    window, seconds, active > 0 ? ", " + active + " of each burst's channels streaming" : "");
            out.printf("%9s %10s %9s %9s %9s %13s %9s %11s %12s %13s%n", "channels", "setup/s", "RSS[MiB]",
                    "open[MiB]", "KiB/pair", "streamed[MiB]", "Gbit/s", "CPU us/msg", "closed[MiB]", "fds");
            for (int n : counts) {
                Row row = burst(server, client, n);
                rows.add(row);
                out.printf(Locale.ROOT, "%9d %10s %9s %9s %9s %13s %9s %11s %12s %13s%n", n,
                        Report.f(row.setupPerSecond()), mib(row.rssBefore()), mib(row.rssOpen()),
                        Report.f(row.bytesPerChannelPair() / 1024.0), mib(row.rssStreamed()), Report.f(row.gbitPerSecond()),
                        Report.f(row.cpuMicrosPerMessage()), mib(row.rssClosed()),
                        row.fdsBefore() + "/" + row.fdsOpen() + "/" + row.fdsClosed());
                if (deviceMappedOpen > 0) {
                    out.printf(Locale.ROOT, "%9s of the open RSS, %s MiB (%s KiB/pair) are the device's queues mapped into the"
                            + " process (/dev/infiniband)%n", "", mib(deviceMappedOpen), Report.f(deviceMappedOpen / 1024.0 / n));
                }
                if (nio) {
                    double[] reference = NioStreams.stream(n, size, seconds);
                    out.printf(Locale.ROOT, "%9s %10s %9s %9s %9s %13s %9s %11s   (plain NIO, %d connections)%n", "", "", "",
                            "", "", "", Report.f(reference[0]), Report.f(reference[1]), n);
                }
            }
        }
        if (csv != null) {
            writeCsv(csv, rows);
        }
        if (plot != null) {
            runs.put(label, rows);
            out.println("charts: " + ScaleCharts.draw(runs, plot));
        }
        return 0;
    }

    /** The last burst's device-mapped resident bytes with its channels open (ProcessMemory.deviceMappedBytes). */
    private long deviceMappedOpen;

    private Row burst(RdmaContext serverContext, RdmaContext clientContext, int n) throws Exception {
        settle();
        long rssBefore = ProcessMemory.residentBytes();
        int fdsBefore = ProcessMemory.openFiles();
        LongAdder received = new LongAdder();
        CountDownLatch serverOpen = new CountDownLatch(n);
        CountDownLatch serverClosed = new CountDownLatch(n);
        ChannelHandler counting = new ChannelHandler() {
            @Override
            public void onOpen(RdmaChannel channel) {
                serverOpen.countDown();
            }

            @Override
            public void onMessage(RdmaChannel channel, RdmaMessage message) {
                received.add(1);
            }

            @Override
            public void onClose(RdmaChannel channel, Throwable cause) {
                serverClosed.countDown();
            }
        };
        var address = new InetSocketAddress(PingPongCommand.gidAddress(serverContext), 0);
        List<RdmaChannel> channels = new ArrayList<>(n);
        double setupPerSecond;
        long rssOpen;
        int fdsOpen;
        double[] stream;
        long rssStreamed;
        try (RdmaServer server = serverContext.listen(address, counting)) {
            long start = System.nanoTime();
            Semaphore inFlight = new Semaphore(connecting);
            List<CompletableFuture<RdmaChannel>> connects = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                if (!inFlight.tryAcquire(120, TimeUnit.SECONDS)) {
                    throw new TimeoutException("no connect completed within 120 s");
                }
                CompletableFuture<RdmaChannel> connect =
                        clientContext.connect(server.localAddress(), address.getAddress(), (ch, m) -> { });
                connect.whenComplete((ch, error) -> inFlight.release());
                connects.add(connect);
            }
            for (CompletableFuture<RdmaChannel> connect : connects) {
                channels.add(connect.get(120, TimeUnit.SECONDS));
            }
            await(serverOpen, n, "server-side channels open");
            setupPerSecond = n / ((System.nanoTime() - start) / 1e9);
            rssOpen = ProcessMemory.residentBytes();
            deviceMappedOpen = ProcessMemory.deviceMappedBytes();
            fdsOpen = ProcessMemory.openFiles();
            stream = stream(clientContext, active > 0 ? channels.subList(0, Math.min(active, n)) : channels, received);
            settle();
            rssStreamed = ProcessMemory.residentBytes();
            for (RdmaChannel channel : channels) {
                channel.close();
            }
            for (RdmaChannel channel : channels) {
                channel.closeFuture().get(60, TimeUnit.SECONDS);
            }
            await(serverClosed, n, "server-side channels closed");
            channels.clear();
        } finally {
            channels.forEach(RdmaChannel::close);
        }
        settle();
        int fdsClosed = filesDownTo(fdsBefore);
        return new Row(n, setupPerSecond, rssBefore, rssOpen, rssStreamed, ProcessMemory.residentBytes(), fdsBefore,
                fdsOpen, fdsClosed, stream[0], stream[1]);
    }

    /**
     * The open files once the loops have closed what the burst held (a closed listener's and channels'
     * sockets are closed by their context's loop, after close() returned); what is still open after 10 s.
     */
    private static int filesDownTo(int before) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int files = ProcessMemory.openFiles();
        while (files > before && System.nanoTime() < deadline) {
            Thread.sleep(10);
            files = ProcessMemory.openFiles();
        }
        return files;
    }

    /**
     * Every channel keeps {@code window} sends in flight for the time asked (each completion sends
     * again until then); returns the aggregate Gbit/s the server received and the process's CPU time
     * per message.
     */
    private double[] stream(RdmaContext ctx, List<RdmaChannel> channels, LongAdder received) throws Exception {
        RegisteredBuffer payload = ctx.allocate(size);
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        CountDownLatch chains = new CountDownLatch(channels.size() * window); // each ends once: time up or failed
        CompletableFuture<Void> failed = new CompletableFuture<>();
        long receivedBefore = received.sum();
        long cpuBefore = os.getProcessCpuTime();
        long start = System.nanoTime();
        long end = start + TimeUnit.SECONDS.toNanos(seconds);
        for (RdmaChannel channel : channels) {
            for (int i = 0; i < window; i++) {
                CallbackChain.post(() -> sendUntil(channel, payload, end, chains, failed));
            }
        }
        if (!chains.await(seconds + 60L, TimeUnit.SECONDS)) {
            throw new TimeoutException(chains.getCount() + " sends still in flight 60 s after the streaming time");
        }
        if (failed.isDone()) {
            failed.get(); // throws the first send's failure
        }
        long elapsed = System.nanoTime() - start;
        long messages = received.sum() - receivedBefore;
        long cpu = os.getProcessCpuTime() - cpuBefore;
        payload.close();
        return new double[] {messages * (double) size * 8 / elapsed, messages == 0 ? Double.NaN : cpu / 1e3 / messages};
    }

    private void sendUntil(RdmaChannel channel, RegisteredBuffer payload, long end, CountDownLatch chains,
                           CompletableFuture<Void> failed) {
        channel.send(payload, 0, size).whenComplete((ok, error) -> {
            if (error != null) {
                failed.completeExceptionally(error);
                chains.countDown();
            } else if (System.nanoTime() < end && !failed.isDone()) {
                CallbackChain.post(() -> sendUntil(channel, payload, end, chains, failed));
            } else {
                chains.countDown();
            }
        });
    }

    private static void await(CountDownLatch latch, int expected, String what) throws Exception {
        if (!latch.await(120, TimeUnit.SECONDS)) {
            throw new TimeoutException((expected - latch.getCount()) + " of " + expected + " " + what + " after 120 s");
        }
    }

    /** Memory a collection would give back (direct buffers, freed by their cleaners) is given back first. */
    private static void settle() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
    }

    private static String mib(long bytes) {
        return Report.f(bytes / 1048576.0);
    }

    /** The rows of a file {@link #writeCsv} wrote. */
    static List<Row> readCsv(Path file) throws IOException {
        List<Row> rows = new ArrayList<>();
        List<String> lines = Files.readAllLines(file);
        for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
            String[] f = line.split(",");
            if (f.length != 12) {
                throw new IOException(file + ": not a line of scale --csv: " + line);
            }
            rows.add(new Row(Integer.parseInt(f[0]), Double.parseDouble(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]),
                    Long.parseLong(f[4]), Long.parseLong(f[5]), Integer.parseInt(f[7]), Integer.parseInt(f[8]),
                    Integer.parseInt(f[9]), Double.parseDouble(f[10]), Double.parseDouble(f[11])));
        }
        return rows;
    }

    private static void writeCsv(Path file, List<Row> rows) throws IOException {
        StringBuilder text = new StringBuilder("channels,setup_per_s,rss_before,rss_open,rss_streamed,rss_closed,"
                + "bytes_per_pair,fds_before,fds_open,fds_closed,gbit_per_s,cpu_us_per_msg\n");
        for (Row r : rows) {
            text.append(String.format(Locale.ROOT, "%d,%.1f,%d,%d,%d,%d,%d,%d,%d,%d,%.3f,%.3f%n", r.channels(),
                    r.setupPerSecond(), r.rssBefore(), r.rssOpen(), r.rssStreamed(), r.rssClosed(),
                    r.bytesPerChannelPair(), r.fdsBefore(), r.fdsOpen(), r.fdsClosed(), r.gbitPerSecond(),
                    r.cpuMicrosPerMessage()));
        }
        Files.writeString(file, text);
    }
}
