package org.jrdma.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Command-line options of {@code bench}, in the spirit of perftest's. */
final class BenchOptions {
    static final List<String> ALL_TESTS = List.of("send_lat", "write_lat", "read_lat", "send_bw", "write_bw", "read_bw");
    static final int EAGER = 64 * 1024 + 16; // sends up to 64 KiB are eager; larger ones go by rendezvous
    static final int MAX_SIZE = 1 << 30; // the default maxMessageSize
    static final int MAX_ITERATIONS = 100_000_000;

    List<String> tests = ALL_TESTS;
    List<Integer> sizes = List.of(8, 64, 512, 4096, 65536, 1 << 20, 4 << 20);
    int latencyIterations = 1000;
    int bandwidthIterations = 1000;
    int warmup = 200;
    org.jrdma.PollMode pollMode = org.jrdma.PollMode.ADAPTIVE;
    int window = 64;
    String server; // --server ip:port
    String connect; // --connect ip:port
    String local; // --local ip (client source address)
    String csv;
    String json;
    boolean quiet;
    boolean casesFromStdin; // --cases-from-stdin

    static BenchOptions parse(String[] args) {
        BenchOptions o = new BenchOptions();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = i + 1 < args.length ? args[i + 1] : null;
            switch (a) {
                case "--tests": o.tests = Arrays.asList(need(a, v).split(",")); i++; break;
                case "--sizes": o.sizes = sizes(need(a, v)); i++; break;
                case "--iters": o.latencyIterations = o.bandwidthIterations = count(a, need(a, v), 1, MAX_ITERATIONS); i++; break;
                case "--lat-iters": o.latencyIterations = count(a, need(a, v), 1, MAX_ITERATIONS); i++; break;
                case "--bw-iters": o.bandwidthIterations = count(a, need(a, v), 1, MAX_ITERATIONS); i++; break;
                case "--warmup": o.warmup = count(a, need(a, v), 0, MAX_ITERATIONS); i++; break;
                case "--window": o.window = count(a, need(a, v), 1, 120); i++; break;
                case "--mode": o.pollMode = mode(need(a, v)); i++; break;
                case "--server": o.server = hostPort(a, need(a, v), 0); i++; break;
                case "--connect": o.connect = hostPort(a, need(a, v), 1); i++; break;
                case "--local": o.local = need(a, v); i++; break;
                case "--csv": o.csv = need(a, v); i++; break;
                case "--json": o.json = need(a, v); i++; break;
                case "--quiet": o.quiet = true; break;
                case "--cases-from-stdin": o.casesFromStdin = true; break;
                default: throw new IllegalArgumentException("unknown option " + a + "\n" + usage());
            }
        }
        for (String t : o.tests) {
            if (!ALL_TESTS.contains(t)) {
                throw new IllegalArgumentException("unknown test " + t + "; tests: " + ALL_TESTS);
            }
        }
        return o;
    }

    /** A whole number in [min, max], or a one-line error naming the option. */
    static int count(String option, String value, int min, int max) {
        long n;
        try {
            n = Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " needs a whole number, not '" + value + "'");
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(option + " must be " + min + ".." + max + ", not " + value);
        }
        return (int) n;
    }

    /** The address of an IP:PORT option (checked by {@link #hostPort} when parsed). */
    static java.net.InetSocketAddress socketAddress(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        return new java.net.InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    /** "IP:PORT" with a port in [minPort, 65535], checked here so that a bad one is a usage error. */
    static String hostPort(String option, String value, int minPort) {
        int colon = value.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException(option + " needs IP:PORT, not '" + value + "'");
        }
        count(option + " port", value.substring(colon + 1), minPort, 65535);
        return value;
    }

    private static org.jrdma.PollMode mode(String v) {
        for (org.jrdma.PollMode mode : org.jrdma.PollMode.values()) {
            if (mode.name().equalsIgnoreCase(v)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("--mode is event, adaptive or busy, not " + v);
    }

    /** Sizes with an optional K, M or G suffix (powers of 1024), each 1 byte .. 1 GiB. */
    static List<Integer> sizes(String v) {
        List<Integer> sizes = new ArrayList<>();
        for (String s : v.split(",")) {
            String t = s.trim().toUpperCase();
            long factor = t.endsWith("K") ? 1L << 10 : t.endsWith("M") ? 1L << 20 : t.endsWith("G") ? 1L << 30 : 1;
            String digits = factor == 1 ? t : t.substring(0, t.length() - 1);
            long size;
            try {
                size = Long.parseLong(digits) * factor;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--sizes: '" + s + "' is not a size (e.g. 8, 4K, 1M)");
            }
            if (digits.length() > 12 || size < 1 || size > MAX_SIZE) {
                throw new IllegalArgumentException("--sizes: " + s + " is out of range; sizes are 1 byte .. 1G");
            }
            sizes.add((int) size);
        }
        return sizes;
    }

    private static String need(String option, String value) {
        if (value == null) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return value;
    }

    static String usage() {
        return String.join("\n",
                "usage: java -jar jrdma-bench.jar bench [options]",
                "  --tests send_lat,write_lat,read_lat,send_bw,write_bw,read_bw   (default: all)",
                "  --sizes 8,64,4K,64K,1M,4M     message sizes (sends above 64K go by rendezvous)",
                "  --iters N | --lat-iters N | --bw-iters N   iterations per size (default 1000)",
                "  --warmup N                    untimed iterations before each size (default 200, at most as many",
                "                                as the timed ones); before all",
                "                                tests the JIT is warmed up at 64 B until it is quiet (at most 90 s)",
                "  --mode event|adaptive|busy    sleep in epoll, spin a while first, or always spin (default adaptive)",
                "  --window N                    operations in flight for *_bw (default 64)",
                "  --server IP:PORT              run the server side only",
                "  --connect IP:PORT [--local IP]  run the client side against a server",
                "  --csv FILE --json FILE        also write the results there",
                "  --cases-from-stdin            warm up, print 'ready', then run one case per line 'TEST SIZE' read",
                "                                from stdin, answering each with its CSV row on stdout (for scripts",
                "                                that interleave other tools case by case, as bench/compare)",
                "  (no --server/--connect: server and client in one process, over the device)",
                "  device selection: RDMA_DEVICE etc. (docs/configuration.md)");
    }
}
