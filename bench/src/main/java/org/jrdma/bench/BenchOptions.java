package org.jrdma.bench;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Iterator;
import java.util.List;
import org.jrdma.PollMode;
import picocli.CommandLine.Option;

/** Command-line options of {@code bench}, in the spirit of perftest's; checked by {@link Arguments}. */
final class BenchOptions {
    static final List<String> ALL_TESTS = List.of("send_lat", "write_lat", "read_lat", "send_bw", "write_bw", "read_bw");
    static final int EAGER = 64 * 1024 + 16; // sends up to 64 KiB are eager; larger ones go by rendezvous

    @Option(names = "--tests", split = ",", paramLabel = "TEST", converter = Arguments.Test.class,
            description = "tests to run: ${COMPLETION-CANDIDATES} (default: all)", completionCandidates = TestNames.class)
    List<String> tests = ALL_TESTS;

    @Option(names = "--sizes", split = ",", paramLabel = "SIZE", converter = Arguments.Size.class,
            description = "message sizes, 1..1G, suffixes K M G (default: 8,64,512,4K,64K,1M,4M); sends above 64K go by rendezvous")
    List<Integer> sizes = List.of(8, 64, 512, 4096, 65536, 1 << 20, 4 << 20);

    @Option(names = "--lat-iters", paramLabel = "N", converter = Arguments.Iterations.class,
            description = "timed iterations of a latency test (default 1000; fewer for large sizes, shown in the iters column)")
    int latencyIterations = 1000;

    @Option(names = "--bw-iters", paramLabel = "N", converter = Arguments.Iterations.class,
            description = "timed iterations of a bandwidth test (default 1000; fewer for large sizes, shown in the iters column)")
    int bandwidthIterations = 1000;

    @Option(names = "--iters", paramLabel = "N", converter = Arguments.Iterations.class,
            description = "sets both --lat-iters and --bw-iters")
    void iterations(int n) {
        latencyIterations = n;
        bandwidthIterations = n;
    }

    @Option(names = "--warmup", paramLabel = "N", converter = Arguments.WarmUp.class,
            description = "untimed iterations before each case (default 200, at most as many as the timed ones); before"
                    + " all tests the JIT is warmed up at 64 B until it is quiet (at most 90 s)")
    int warmup = 200;

    @Option(names = "--mode", paramLabel = "MODE", description = "how the loops wait: event, adaptive or busy (default"
            + " adaptive); caller: no loop threads, the benchmark's threads drive the contexts (one thread per side)")
    PollMode pollMode = PollMode.ADAPTIVE;

    @Option(names = "--window", paramLabel = "N", converter = Arguments.Window.class,
            description = "operations in flight for *_bw, 1..120 (default 64)")
    int window = 64;

    @Option(names = "--server", paramLabel = "IP:PORT", converter = Arguments.ListenAddress.class,
            description = "run the server side only, listening there")
    InetSocketAddress server;

    @Option(names = "--connect", paramLabel = "IP:PORT", converter = Arguments.PeerAddress.class,
            description = "run the client side against a server there")
    InetSocketAddress connect;

    @Option(names = "--local", paramLabel = "IP", description = "the client's source address (with --connect)")
    InetAddress local;

    @Option(names = "--csv", paramLabel = "FILE", description = "also write the results there as CSV")
    String csv;

    @Option(names = "--json", paramLabel = "FILE", description = "also write the results there as JSON, with what was"
            + " measured where (versions, transport, device, mode, JVM, host, time)")
    String json;

    @Option(names = "--plot", paramLabel = "DIR", description = "also draw PNG charts there, one per test: latency (p50,"
            + " p99) or bandwidth by message size")
    java.nio.file.Path plot;

    @Option(names = "--quiet", description = "no progress lines on stderr")
    boolean quiet;

    @Option(names = "--cases-from-stdin", description = "warm up, print 'ready', then run one case per line 'TEST SIZE'"
            + " read from stdin, answering each with its CSV row on stdout (for scripts that interleave other tools"
            + " case by case, as bench/compare)")
    boolean casesFromStdin;

    /** The test names for the help text. */
    static final class TestNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return ALL_TESTS.iterator();
        }
    }
}
