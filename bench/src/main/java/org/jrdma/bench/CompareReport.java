package org.jrdma.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code compare-report DIR}: joins the outputs that bench/vm-compare.sh left in DIR — perftest's
 * (perftest-TEST-SIZE.txt) and jrdma's (java-MODE.csv, native.csv) — into one table with the ratios
 * jrdma/perftest (latency: p50 vs perftest's t_typical; bandwidth: MiB/s vs BW average). When DIR
 * holds several rounds (round-N/), each cell is the median over the rounds, and each ratio the
 * median of the per-round ratios (a ratio only ever compares figures of the same round).
 */
@Command(name = "compare-report", mixinStandardHelpOptions = true,
        description = "joins the outputs bench/compare left in DIR into one table of ratios jrdma / perftest")
final class CompareReport implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "DIR", description = "bench/compare's results (bench/target/compare)")
    Path dir;

    @Option(names = "--plot", paramLabel = "DIR", description = "also draw PNG charts there: p50 and p99 latency and"
            + " bandwidth by message size, one line per tool (CompareCharts)")
    Path plotDir;

    @Override
    public Integer call() throws IOException {
        return run(dir, plotDir, System.out);
    }

    private static final Pattern LAT_ROW = Pattern.compile(
            "(?m)^\\s*(\\d+)\\s+(\\d+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)");
    /** perftest-TEST-SIZE.txt (busy-polling) and perftest-e-TEST-SIZE.txt (-e: sleeps on CQ events). */
    private static final Pattern PERFTEST_FILE = Pattern.compile("perftest(-e)?-(\\w+_(?:lat|bw))-(\\d+)\\.txt");
    private static final Pattern BW_ROW = Pattern.compile(
            "(?m)^\\s*(\\d+)\\s+(\\d+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s*$");
    /** jrdma's columns, each with the perftest column its ratio compares to (event mode: perftest -e for latency). */
    /** The suffix of a column's 99th-percentile latency ("java-busy p99"). */
    static final String P99 = " p99";

    static final List<String> OURS = List.of("java-busy", "java-adaptive", "java-event", "java-caller", "native");

    private static String reference(String column, String test) {
        return column.equals("java-event") && (test.equals("send_lat") || test.equals("read_lat")) ? "perftest-e" : "perftest";
    }

    static int run(Path dir, Path plotDir, PrintStream out) throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new IllegalArgumentException(dir + " is not a directory (bench/compare writes bench/target/compare)");
        }
        List<Path> roundDirs;
        try (var files = Files.list(dir)) {
            roundDirs = files.filter(p -> p.getFileName().toString().matches("round-\\d+") && Files.isDirectory(p))
                    .sorted().toList();
        }
        if (roundDirs.isEmpty()) {
            roundDirs = List.of(dir);
        }
        List<Map<String, Map<String, Double>>> rounds = new ArrayList<>();
        for (Path round : roundDirs) {
            rounds.add(load(round));
        }
        out.printf("%-10s %9s %9s %10s %9s %6s %11s %13s %6s %10s %6s %11s %6s %9s %6s%n", "test", "bytes", "perftest",
                "perftest-e", "java-busy", "ratio", "busy-range", "java-adaptive", "ratio", "java-event", "ratio",
                "java-caller", "ratio", "native", "ratio");
        for (String test : BenchOptions.ALL_TESTS) {
            for (int size : sizes(rounds, test)) {
                String key = test + " " + size;
                StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-10s %9d %9s %10s", test, size,
                        v(median(rounds, key, "perftest", null)), v(median(rounds, key, "perftest-e", null))));
                for (String column : OURS) {
                    int width = Math.max(9, column.length());
                    line.append(String.format(Locale.ROOT, " %" + width + "s %6s", v(median(rounds, key, column, null)),
                            v(median(rounds, key, column, reference(column, test)))));
                    if (column.equals("java-busy")) {
                        List<Double> ratios = perRound(rounds, key, column, "perftest");
                        line.append(String.format(Locale.ROOT, " %11s", ratios.isEmpty() ? "-"
                                : v(ratios.get(0)) + "-" + v(ratios.get(ratios.size() - 1))));
                    }
                }
                out.println(line);
            }
        }
        out.println("latency: microseconds (perftest t_typical vs jrdma p50, one-way for send/write, round trip for read);"
                + " bandwidth: MiB/s (BW average vs jrdma). ratio = jrdma / perftest busy-polling, except java-event's"
                + " send_lat and read_lat ratio: / perftest -e (both sleep on CQ events; perftest has no -e for write_lat).");
        if (rounds.size() > 1) {
            out.println("medians over " + rounds.size() + " rounds; each ratio is the median of the per-round ratios;"
                    + " busy-range: the lowest and highest per-round ratio of java-busy.");
        }
        out.println();
        targets(rounds, out);
        if (plotDir != null) {
            for (Path chart : CompareCharts.draw(rounds, plotDir)) {
                out.println("chart: " + chart);
            }
        }
        return 0;
    }

    /** A target (issues 6 and 17): the ratio column / reference of one row must stay at or below (or above) a bound. */
    private record Target(String name, String column, String reference, String test, int size, double bound,
                          boolean atMost) {
        boolean met(double ratio) {
            return atMost ? ratio <= bound : ratio >= bound;
        }
    }

    private static final List<Target> TARGETS = List.of(
            new Target("busy: send/recv ping-pong p50, 64 B", "java-busy", "perftest", "send_lat", 64, 1.15, true),
            new Target("busy: write ping-pong p50, 64 B", "java-busy", "perftest", "write_lat", 64, 1.15, true),
            new Target("busy: write bandwidth, 64 KiB", "java-busy", "perftest", "write_bw", 65536, 0.95, false),
            new Target("busy: write bandwidth, 1 MiB", "java-busy", "perftest", "write_bw", 1 << 20, 0.95, false),
            new Target("busy: read bandwidth, 64 KiB", "java-busy", "perftest", "read_bw", 65536, 0.95, false),
            new Target("busy: read bandwidth, 1 MiB", "java-busy", "perftest", "read_bw", 1 << 20, 0.95, false),
            new Target("busy: 64 B message rate (send_bw)", "java-busy", "perftest", "send_bw", 64, 0.8, false),
            new Target("adaptive: send/recv p50, 64 B", "java-adaptive", "perftest", "send_lat", 64, 1.3, true),
            new Target("adaptive: write p50, 64 B", "java-adaptive", "perftest", "write_lat", 64, 1.3, true),
            // issue 31: the application's thread drives the context, one thread per side as perftest
            new Target("caller: send/recv p50, 64 B", "java-caller", "perftest", "send_lat", 64, 1.15, true),
            new Target("caller: write p50, 64 B", "java-caller", "perftest", "write_lat", 64, 1.15, true),
            // perftest has no event mode for write_lat
            new Target("event: send/recv p50 vs -e, 64 B", "java-event", "perftest-e", "send_lat", 64, 1.15, true));

    /** Each target with the median of its per-round ratios, the ratios in round order, and in how many rounds it held. */
    private static void targets(List<Map<String, Map<String, Double>>> rounds, PrintStream out) {
        out.println("targets (jrdma / perftest, per round in round order):");
        for (Target t : TARGETS) {
            String key = t.test() + " " + t.size();
            List<String> perRound = new ArrayList<>();
            int met = 0;
            int measured = 0;
            for (Map<String, Map<String, Double>> round : rounds) {
                Map<String, Double> row = round.getOrDefault(key, Map.of());
                Double ours = row.get(t.column());
                Double reference = row.get(t.reference());
                if (ours == null || reference == null || reference == 0) {
                    perRound.add("-");
                    continue;
                }
                double ratio = ours / reference;
                perRound.add(v(ratio));
                measured++;
                met += t.met(ratio) ? 1 : 0;
            }
            Double median = median(rounds, key, t.column(), t.reference());
            out.printf(Locale.ROOT, "  %-36s %s %.2f: median %s, rounds %s, met in %d of %d%n", t.name(),
                    t.atMost() ? "<=" : ">=", t.bound(), v(median), String.join(" ", perRound), met, measured);
        }
    }

    /** One round: "test size" -> column (perftest, perftest-e, java-busy, java-adaptive, java-event, native) -> value. */
    private static Map<String, Map<String, Double>> load(Path dir) throws IOException {
        Map<String, Map<String, Double>> cells = new LinkedHashMap<>();
        for (String column : OURS) {
            Path csv = dir.resolve(column + ".csv");
            if (!Files.exists(csv)) {
                continue;
            }
            for (String line : Files.readAllLines(csv)) {
                String[] f = Report.csvFields(line).toArray(String[]::new);
                if (f.length < 8 || f[0].equals("test")) {
                    continue;
                }
                put(cells, column, f[0], Integer.parseInt(f[1]), parse(f[3]), parse(f[4]), parse(f[6]));
            }
        }
        try (var files = Files.list(dir)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Matcher name = PERFTEST_FILE.matcher(file.getFileName().toString());
                if (name.matches()) {
                    boolean latency = name.group(2).endsWith("_lat");
                    String column = name.group(1) == null ? "perftest" : "perftest-e";
                    Double value = perftest(file, latency, false);
                    if (value != null) {
                        Map<String, Double> row = cells.computeIfAbsent(name.group(2) + " " + name.group(3),
                                k -> new LinkedHashMap<>());
                        row.put(column, value);
                        Double p99 = latency ? perftest(file, true, true) : null;
                        if (p99 != null) {
                            row.put(column + P99, p99);
                        }
                    }
                }
            }
        }
        return cells;
    }

    /** One round of a single column from bench's own results (bench --plot draws them as compare-report does). */
    static Map<String, Map<String, Double>> cells(String column, List<Result> results) {
        Map<String, Map<String, Double>> cells = new LinkedHashMap<>();
        for (Result r : results) {
            put(cells, column, r.test(), r.size(), r.p50(), r.p99(), r.mibPerSecond());
        }
        return cells;
    }

    /** A case's figure under its column: p50 and p99 for a latency test, MiB/s for a bandwidth one; NaN: none. */
    private static void put(Map<String, Map<String, Double>> cells, String column, String test, int size, double p50,
                            double p99, double mibPerSecond) {
        boolean latency = test.endsWith("_lat");
        double value = latency ? p50 : mibPerSecond;
        if (!Double.isNaN(value)) {
            cells.computeIfAbsent(test + " " + size, k -> new LinkedHashMap<>()).put(column, value);
        }
        if (latency && !Double.isNaN(p99)) {
            cells.computeIfAbsent(test + " " + size, k -> new LinkedHashMap<>()).put(column + P99, p99);
        }
    }

    private static double parse(String field) {
        return field.isEmpty() ? Double.NaN : Double.parseDouble(field);
    }

    static List<Integer> sizes(List<Map<String, Map<String, Double>>> rounds, String test) {
        return rounds.stream().flatMap(r -> r.keySet().stream()).filter(k -> k.startsWith(test + " "))
                .map(k -> Integer.parseInt(k.substring(test.length() + 1))).distinct().sorted().toList();
    }

    /** The median over the rounds of a column's value, or of its ratio to another column of the same round. */
    static Double median(List<Map<String, Map<String, Double>>> rounds, String key, String column, String over) {
        List<Double> values = perRound(rounds, key, column, over);
        if (values.isEmpty()) {
            return null;
        }
        int n = values.size();
        return n % 2 == 1 ? values.get(n / 2) : (values.get(n / 2 - 1) + values.get(n / 2)) / 2;
    }

    /** A column's value (or its ratio to another column of the same round) in each round that has both, sorted. */
    private static List<Double> perRound(List<Map<String, Map<String, Double>>> rounds, String key, String column,
                                         String over) {
        List<Double> values = new ArrayList<>();
        for (Map<String, Map<String, Double>> round : rounds) {
            Map<String, Double> row = round.getOrDefault(key, Map.of());
            Double value = row.get(column);
            Double reference = over == null ? Double.valueOf(1) : row.get(over);
            if (value != null && reference != null && reference != 0) {
                values.add(value / reference);
            }
        }
        values.sort(null);
        return values;
    }

    /** perftest's typical latency (or its 99th percentile) or average bandwidth. */
    private static Double perftest(Path file, boolean latency, boolean p99) throws IOException {
        String text = Files.readString(file);
        Matcher m = (latency ? LAT_ROW : BW_ROW).matcher(text);
        if (!m.find()) {
            return null;
        }
        return Double.parseDouble(latency ? m.group(p99 ? 8 : 5) : m.group(4));
    }

    private static String v(Double value) {
        return value == null ? "-" : String.format(Locale.ROOT, "%.2f", value);
    }
}
