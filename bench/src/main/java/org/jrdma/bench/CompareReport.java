package org.jrdma.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code compare-report DIR}: joins the outputs that bench/vm-compare.sh left in DIR — perftest's
 * (perftest-TEST-SIZE.txt) and jrdma's (java-MODE.csv, native.csv) — into one table with the ratios
 * jrdma/perftest (latency: p50 vs perftest's t_typical; bandwidth: MiB/s vs BW average).
 */
final class CompareReport {
    private static final Pattern LAT_ROW = Pattern.compile(
            "(?m)^\\s*(\\d+)\\s+(\\d+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)");
    private static final Pattern BW_ROW = Pattern.compile(
            "(?m)^\\s*(\\d+)\\s+(\\d+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s*$");

    private CompareReport() {
    }

    static int run(String[] args, PrintStream out) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: compare-report DIR");
            return 2;
        }
        Path dir = Path.of(args[0]);
        Map<String, Map<String, Double>> ours = new LinkedHashMap<>(); // "test size" -> column -> value
        for (String column : List.of("java-event", "java-busy", "native")) {
            Path csv = dir.resolve(column + ".csv");
            if (!Files.exists(csv)) {
                continue;
            }
            for (String line : Files.readAllLines(csv)) {
                String[] f = line.split(",", -1);
                if (f[0].equals("test") || f.length < 8) {
                    continue;
                }
                String key = f[0] + " " + f[1];
                String value = f[0].endsWith("_lat") ? f[3] : f[6];
                if (!value.isEmpty()) {
                    ours.computeIfAbsent(key, k -> new LinkedHashMap<>()).put(column, Double.parseDouble(value));
                }
            }
        }
        out.printf("%-10s %9s %12s %12s %9s %12s %9s %12s %9s%n", "test", "bytes", "perftest", "java-event", "ratio",
                "java-busy", "ratio", "native", "ratio");
        for (String test : BenchOptions.ALL_TESTS) {
            for (Path file : sortedPerftestFiles(dir, test)) {
                int size = Integer.parseInt(file.getFileName().toString().replaceAll(".*-(\\d+)\\.txt", "$1"));
                Double reference = perftest(file, test.endsWith("_lat"));
                Map<String, Double> row = ours.getOrDefault(test + " " + size, Map.of());
                out.printf(Locale.ROOT, "%-10s %9d %12s %12s %9s %12s %9s %12s %9s%n", test, size, v(reference),
                        v(row.get("java-event")), ratio(row.get("java-event"), reference), v(row.get("java-busy")),
                        ratio(row.get("java-busy"), reference), v(row.get("native")), ratio(row.get("native"), reference));
            }
        }
        out.println("latency: microseconds (perftest t_typical vs jrdma p50, one-way for send/write, round trip for read);"
                + " bandwidth: MiB/s (BW average vs jrdma). ratio = jrdma / perftest.");
        return 0;
    }

    private static List<Path> sortedPerftestFiles(Path dir, String test) throws IOException {
        try (var files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith("perftest-" + test + "-"))
                    .sorted((a, b) -> Integer.compare(size(a), size(b))).toList();
        }
    }

    private static int size(Path p) {
        return Integer.parseInt(p.getFileName().toString().replaceAll(".*-(\\d+)\\.txt", "$1"));
    }

    private static Double perftest(Path file, boolean latency) throws IOException {
        String text = Files.readString(file);
        Matcher m = (latency ? LAT_ROW : BW_ROW).matcher(text);
        if (!m.find()) {
            return null;
        }
        return Double.parseDouble(latency ? m.group(5) : m.group(4));
    }

    private static String v(Double value) {
        return value == null ? "-" : String.format(Locale.ROOT, "%.2f", value);
    }

    private static String ratio(Double ours, Double reference) {
        return ours == null || reference == null || reference == 0 ? "-" : String.format(Locale.ROOT, "%.2f", ours / reference);
    }
}
