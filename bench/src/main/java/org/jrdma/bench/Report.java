package org.jrdma.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** Prints results as perftest-like table, and writes CSV / JSON. */
final class Report {
    private Report() {
    }

    static void header(PrintStream out) {
        out.printf("%-10s %9s %7s %10s %10s %10s %11s %9s%n", "test", "bytes", "iters", "p50[us]", "p99[us]", "p99.9[us]",
                "MiB/s", "Mmsg/s");
    }

    static void row(PrintStream out, Result r) {
        if (!r.note().isEmpty()) {
            out.printf("%-10s %9d %7s %s%n", r.test(), r.size(), "-", r.note());
            return;
        }
        out.printf(Locale.ROOT, "%-10s %9d %7d %10s %10s %10s %11s %9s%n", r.test(), r.size(), r.iterations(), f(r.p50(), 2),
                f(r.p99(), 2), f(r.p999(), 2), f(r.mibPerSecond(), 1), f(r.mmsgPerSecond(), 4));
    }

    private static String f(double v, int decimals) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    static void csv(Path file, List<Result> results) throws IOException {
        StringBuilder text = new StringBuilder(CSV_HEADER).append('\n');
        for (Result r : results) {
            text.append(csvRow(r)).append('\n');
        }
        Files.writeString(file, text);
    }

    static final String CSV_HEADER = "test,bytes,iterations,p50_us,p99_us,p999_us,mib_per_s,mmsg_per_s,note";

    /** One result as a CSV line (no line break; a note's line breaks and commas become spaces and semicolons). */
    static String csvRow(Result r) {
        return String.format(Locale.ROOT, "%s,%d,%d,%s,%s,%s,%s,%s,%s", r.test(), r.size(), r.iterations(), n(r.p50()),
                n(r.p99()), n(r.p999()), n(r.mibPerSecond()), n(r.mmsgPerSecond()),
                r.note().replaceAll("[\\r\\n]+", " ").replace(',', ';'));
    }

    static void json(Path file, List<Result> results) throws IOException {
        StringBuilder text = new StringBuilder("[\n");
        for (int i = 0; i < results.size(); i++) {
            Result r = results.get(i);
            text.append(String.format(Locale.ROOT,
                    "  {\"test\": \"%s\", \"bytes\": %d, \"iterations\": %d, \"p50_us\": %s, \"p99_us\": %s, \"p999_us\": %s,"
                            + " \"mib_per_s\": %s, \"mmsg_per_s\": %s, \"note\": \"%s\"}%s%n",
                    r.test(), r.size(), r.iterations(), j(r.p50()), j(r.p99()), j(r.p999()), j(r.mibPerSecond()),
                    j(r.mmsgPerSecond()), r.note(), i + 1 < results.size() ? "," : ""));
        }
        Files.writeString(file, text.append("]\n"));
    }

    private static String n(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.4f", v);
    }

    private static String j(double v) {
        return Double.isNaN(v) ? "null" : String.format(Locale.ROOT, "%.4f", v);
    }
}
