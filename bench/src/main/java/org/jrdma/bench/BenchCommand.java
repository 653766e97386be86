package org.jrdma.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import org.jrdma.Rdma;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaConfigBuilder;
import org.jrdma.RdmaContext;
import org.jrdma.Transport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code bench}: perftest-style latency and bandwidth tests over jrdma channels. Without
 * --server/--connect, server and client run in this process on two contexts (the client's device
 * is JRDMA_BENCH_CLIENT_DEVICE, else the same as the server's) and talk through the device.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"perftest-style latency and bandwidth tests over jrdma channels.",
            "Without --server/--connect, server and client run in this process on two contexts and talk through the"
                    + " device (the client's device: JRDMA_BENCH_CLIENT_DEVICE, else the server's).",
            "Device selection: RDMA_DEVICE etc. (docs/configuration.md)."})
final class BenchCommand implements Callable<Integer> {
    @Mixin
    BenchOptions options;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        checkBeforeRunning(options, spec.commandLine());
        return run(options, System.out);
    }

    /** What parsing alone cannot see, refused before a run that could take minutes (exit 2, one line). */
    static void checkBeforeRunning(BenchOptions options, picocli.CommandLine cli) {
        if (options.server != null && options.connect != null) {
            throw new picocli.CommandLine.ParameterException(cli,
                    "--server and --connect together: a run is the server side (--server) or the client side (--connect),"
                            + " or both in one process (neither)");
        }
        for (String file : new String[] {options.csv, options.json}) {
            Path parent = file == null ? null : Path.of(file).toAbsolutePath().getParent();
            if (parent != null && !Files.isDirectory(parent)) {
                throw new picocli.CommandLine.ParameterException(cli, "the directory of " + file + " does not exist");
            }
        }
        if (options.plot != null) {
            try {
                Files.createDirectories(options.plot); // now: a run of minutes should not end in "cannot write"
            } catch (java.io.IOException | SecurityException e) {
                throw new picocli.CommandLine.ParameterException(cli, "cannot create " + options.plot + " for --plot: " + e);
            }
        }
    }

    static int run(BenchOptions options, PrintStream out) throws Exception {
        RdmaConfigBuilder config = configFromEnvironment().pollMode(options.pollMode).eagerSize(BenchOptions.EAGER);
        if (options.server != null) {
            try (RdmaContext ctx = Rdma.open(config.build());
                 BenchServer server = new BenchServer(ctx, options.server, System.err)) {
                out.println("bench server on " + ctx.device().name() + " " + server.address() + " (" + mode(options) + ")");
                out.flush();
                Driving.inBackground(ctx, server::pass);
                Thread.currentThread().join(); // until killed
            }
            return 0;
        }
        if (options.connect != null) {
            try (RdmaContext ctx = Rdma.open(config.build())) {
                return runClient(new BenchClient(ctx, options.connect, options.local, options, System.err), ctx, options, out);
            }
        }
        RdmaConfig serverConfig = config.build();
        String clientDevice = System.getenv("JRDMA_BENCH_CLIENT_DEVICE");
        RdmaConfig clientConfig = clientDevice == null ? serverConfig : config.device(clientDevice).build();
        try (RdmaContext serverCtx = Rdma.open(serverConfig);
             RdmaContext clientCtx = Rdma.open(clientConfig);
             BenchServer server = new BenchServer(serverCtx, new InetSocketAddress(PingPongCommand.gidAddress(serverCtx), 0),
                     System.err)) {
            Driving.inBackground(serverCtx, server::pass);
            BenchClient client = new BenchClient(clientCtx, server.address(), PingPongCommand.gidAddress(clientCtx), options,
                    System.err);
            return runClient(client, clientCtx, options, out);
        }
    }

    private static int runClient(BenchClient client, RdmaContext ctx, BenchOptions options, PrintStream out) throws Exception {
        if (options.casesFromStdin) {
            return runCasesFromStdin(client, ctx, options, out);
        }
        RunInfo run = RunInfo.of(ctx, mode(options), options.window, options.warmup);
        out.printf("jrdma bench over %s, %s mode, warm-up %d, window %d%n", run.link(), run.mode(), run.window(), run.warmup());
        emulationNotice(ctx, out);
        out.println("latency: one-way (round trip / 2) for send_lat and write_lat, round trip for read_lat, as perftest;"
                + " iters: the timed iterations (fewer than asked for large sizes)");
        out.println(warmUp(client, options));
        out.flush();
        Report.header(out);
        List<Result> results = new ArrayList<>();
        for (String test : options.tests) {
            for (int size : options.sizes) {
                if (!options.quiet) {
                    System.err.printf("[bench] %s %d bytes ...%n", test, size);
                }
                Result result = runCase(client, test, size);
                results.add(result);
                Report.row(out, result);
                out.flush();
            }
        }
        if (options.csv != null) {
            Report.csv(Path.of(options.csv), results);
        }
        if (options.json != null) {
            Report.json(Path.of(options.json), run, results);
        }
        if (options.plot != null) {
            CompareCharts.draw(List.of(CompareReport.cells("java-" + mode(options), results)), options.plot);
        }
        return 0;
    }

    /** One test at one size; a failed or stuck test is reported as such and the run goes on with the next. */
    private static Result runCase(BenchClient client, String test, int size) {
        try {
            return client.run(test, size);
        } catch (Exception e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            return Result.skipped(test, size, "FAILED: " + causeChain(cause));
        }
    }

    /** The failure and every cause under it ("write_bw failed: ... <- RdmaOperationException: ..."): the top alone hides why. */
    static String causeChain(Throwable failure) {
        StringBuilder text = new StringBuilder(failure.toString());
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        seen.add(failure);
        for (Throwable c = failure.getCause(); c != null && seen.add(c); c = c.getCause()) {
            text.append(" <- ").append(c);
        }
        return text.toString();
    }

    /**
     * --cases-from-stdin: warms the JIT up once, prints "ready ...", then runs the case named by each
     * line of stdin ("TEST SIZE") and answers with its CSV row, one line per case, until stdin ends. A
     * comparison script can so interleave perftest and this tool case by case, with a JVM that stays
     * warm (starting a JVM per case would measure its JIT instead).
     */
    private static int runCasesFromStdin(BenchClient client, RdmaContext ctx, BenchOptions options, PrintStream out)
            throws Exception {
        System.err.printf("jrdma bench over %s, %s mode, cases from stdin%n", PingPongCommand.link(ctx), mode(options));
        emulationNotice(ctx, System.err);
        out.println("ready; " + warmUp(client, options));
        out.flush();
        BufferedReader in = new BufferedReader(
                new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            String[] words = line.trim().split("\\s+");
            if (words.length == 1 && words[0].isEmpty()) {
                continue;
            }
            Result result;
            if (words.length != 2 || !BenchOptions.ALL_TESTS.contains(words[0]) || !words[1].matches("\\d{1,9}")) {
                result = Result.skipped(words[0], 0, "FAILED: expected a line 'TEST SIZE', got '" + line + "'");
            } else {
                result = runCase(client, words[0], Integer.parseInt(words[1]));
            }
            Report.row(System.err, result);
            out.println(Report.csvRow(result));
            out.flush();
        }
        return 0;
    }

    /**
     * Untimed rounds of every selected test at 64 bytes until the JIT is done: a round in which it
     * finished compilations of less than {@link #JIT_QUIET_MILLIS} and after which C2 has nothing running
     * or queued ({@link JitActivity}), at least two rounds, at most {@link #WARM_UP_LIMIT_NANOS}.
     * Under emulation a C2 compilation takes seconds, and a compiler thread that shares the
     * benchmark's CPU would otherwise be measured as latency.
     */
    private static String warmUp(BenchClient client, BenchOptions options) throws Exception {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean monitored = jit != null && jit.isCompilationTimeMonitoringSupported();
        long start = System.nanoTime();
        int rounds = 0;
        long compiling = Long.MAX_VALUE;
        int optimizing = -1;
        while (rounds < 2 || ((monitored && compiling >= JIT_QUIET_MILLIS || optimizing > 0)
                && System.nanoTime() - start < WARM_UP_LIMIT_NANOS)) {
            long before = monitored ? jit.getTotalCompilationTime() : 0;
            for (String test : options.tests) {
                client.run(test, 64, WARM_UP_ITERATIONS);
            }
            compiling = monitored ? jit.getTotalCompilationTime() - before : 0;
            optimizing = JitActivity.optimizingCompilations();
            rounds++;
            if (!options.quiet) {
                System.err.printf(Locale.ROOT, "[bench] JIT warm-up round %d: %.1f s so far, compiling %s, C2 at work on %s%n",
                        rounds, (System.nanoTime() - start) / 1e9, monitored ? compiling + " ms in this round" : "unknown",
                        optimizing < 0 ? "unknown" : optimizing + " methods");
            }
        }
        return String.format(Locale.ROOT, "JIT warm-up: %d rounds of %d iterations per test at 64 bytes in %.1f s;"
                + " compiling in the last round: %s; C2 at work on %s", rounds, WARM_UP_ITERATIONS,
                (System.nanoTime() - start) / 1e9, monitored ? compiling + " ms" : "unknown",
                optimizing < 0 ? "unknown" : optimizing + " methods");
    }

    private static final int WARM_UP_ITERATIONS = 2000;
    private static final long JIT_QUIET_MILLIS = 50;
    private static final long WARM_UP_LIMIT_NANOS = 90_000_000_000L;

    /** A line saying when the figures are not RDMA hardware's: another transport, or a software device ({@link RunInfo#emulated}). */
    static void emulationNotice(RdmaContext ctx, PrintStream out) {
        if (ctx.transport() != Transport.VERBS) {
            out.println("note: " + ctx.transport() + " transport (no RDMA device used): these figures measure sockets or"
                    + " shared memory and the peer's library serving one-sided operations, not RDMA");
            return;
        }
        if (RunInfo.emulated(ctx)) {
            out.println("note: " + ctx.device().name() + " is an emulated device (Soft-RoCE/siw in the kernel): these figures measure"
                    + " the CPU that emulates it, not RDMA hardware");
        }
    }

    private static String mode(BenchOptions options) {
        return options.pollMode.name().toLowerCase(Locale.ROOT);
    }

    private static RdmaConfigBuilder configFromEnvironment() {
        RdmaConfig env = RdmaConfig.fromEnvironment();
        RdmaConfigBuilder b = RdmaConfig.builder().queueDepth(env.queueDepth()).timeout(env.timeout())
                .retryCount(env.retryCount()).serviceLevel(env.serviceLevel()).trafficClass(env.trafficClass())
                .pkeyIndex(env.pkeyIndex()).adaptiveSpinMicros(env.adaptiveSpinMicros()).transport(env.transport());
        if (env.device() != null) {
            b.device(env.device());
            if (env.port() != 0) {
                b.port(env.port());
            }
        }
        if (env.gidIndex() >= 0) {
            b.gidIndex(env.gidIndex());
        }
        if (env.mtu() != 0) {
            b.mtu(env.mtu());
        }
        return b;
    }
}
