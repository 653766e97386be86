package org.jrdma.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

/** Prints results as a perftest-like table, and writes CSV (commons-csv) and JSON (Gson). */
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
        out.printf(Locale.ROOT, "%-10s %9d %7d %10s %10s %10s %11s %9s%n", r.test(), r.size(), r.iterations(), f(r.p50()),
                f(r.p99()), f(r.p999()), f(r.mibPerSecond()), f(r.mmsgPerSecond()));
    }

    /**
     * Four significant digits, without an exponent: a fixed number of decimals printed 0.0000 Mmsg/s
     * for 1 MiB messages and 0.0 MiB/s for 8-byte ones, which said nothing.
     */
    static String f(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        if (v == 0 || Double.isInfinite(v)) {
            return String.valueOf(v);
        }
        return new BigDecimal(v).round(new MathContext(4)).stripTrailingZeros().toPlainString();
    }

    static void csv(Path file, List<Result> results) throws IOException {
        StringBuilder text = new StringBuilder(CSV_HEADER).append('\n');
        for (Result r : results) {
            text.append(csvRow(r)).append('\n');
        }
        Files.writeString(file, text);
    }

    static final String CSV_HEADER = "test,bytes,iterations,p50_us,p99_us,p999_us,mib_per_s,mmsg_per_s,note";

    /** RFC 4180 (commons-csv): a note with commas or quotes is quoted; records end with a line break. */
    private static final CSVFormat CSV = CSVFormat.RFC4180.builder().setRecordSeparator("").get();

    /**
     * One result as one CSV line (commons-csv quotes the note as needed). The note's line breaks
     * become spaces: the line protocol of --cases-from-stdin reads one line per case.
     */
    static String csvRow(Result r) {
        try {
            StringBuilder line = new StringBuilder();
            CSV.printRecord(line, r.test(), r.size(), r.iterations(), n(r.p50()), n(r.p99()), n(r.p999()),
                    n(r.mibPerSecond()), n(r.mmsgPerSecond()), r.note().replaceAll("[\\r\\n]+", " "));
            return line.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringBuilder does not throw
        }
    }

    /** The fields of one CSV line written by {@link #csvRow} (or by the native benchmark). */
    static List<String> csvFields(String line) throws IOException {
        try (CSVParser parser = CSVParser.parse(line, CSVFormat.RFC4180)) {
            List<CSVRecord> records = parser.getRecords();
            return records.isEmpty() ? List.of() : records.get(0).toList();
        }
    }

    static void json(Path file, RunInfo run, List<Result> results) throws IOException {
        Files.writeString(file, jsonText(run, results));
    }

    /**
     * {"run": what was measured where ({@link RunInfo}), "results": one object per case} — a JSON
     * library writes it: any note text is escaped; NaN is null.
     */
    static String jsonText(RunInfo run, List<Result> results) {
        com.google.gson.Gson gson = new com.google.gson.GsonBuilder().setPrettyPrinting().serializeNulls().create();
        com.google.gson.JsonObject document = new com.google.gson.JsonObject();
        document.add("run", gson.toJsonTree(run));
        document.add("results", resultsArray(results));
        return gson.toJson(document) + "\n";
    }

    private static com.google.gson.JsonArray resultsArray(List<Result> results) {
        com.google.gson.JsonArray array = new com.google.gson.JsonArray();
        for (Result r : results) {
            com.google.gson.JsonObject o = new com.google.gson.JsonObject();
            o.addProperty("test", r.test());
            o.addProperty("bytes", r.size());
            o.addProperty("iterations", r.iterations());
            o.add("p50_us", j(r.p50()));
            o.add("p99_us", j(r.p99()));
            o.add("p999_us", j(r.p999()));
            o.add("mib_per_s", j(r.mibPerSecond()));
            o.add("mmsg_per_s", j(r.mmsgPerSecond()));
            o.addProperty("note", r.note());
            array.add(o);
        }
        return array;
    }

    private static String n(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.4f", v);
    }

    private static com.google.gson.JsonElement j(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? com.google.gson.JsonNull.INSTANCE
                : new com.google.gson.JsonPrimitive(Math.round(v * 10000.0) / 10000.0);
    }
}
