package org.jrdma.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchCommandTest {
    /**
     * A short run over TCP (a JVM of its own, as a newcomer runs it): the table, and the results left in
     * files — JSON with what was measured where, CSV, a chart per test.
     */
    @Test
    void aRunLeavesItsResultsWithTheirContextInFiles(@TempDir Path dir) throws Exception {
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path json = dir.resolve("results.json");
        Path csv = dir.resolve("results.csv");
        Path charts = dir.resolve("charts/new");
        ProcessBuilder builder = new ProcessBuilder(javaBin, "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "bench", "--tests", "send_lat,write_bw", "--sizes", "8,1M", "--iters", "50",
                "--warmup", "10", "--json", json.toString(), "--csv", csv.toString(), "--plot", charts.toString())
                .redirectErrorStream(true);
        builder.environment().put("RDMA_TRANSPORT", "tcp");
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(180, TimeUnit.SECONDS), "bench did not finish");
        assertEquals(0, process.exitValue(), output);
        assertFalse(output.matches("(?s).*\\s0\\.0+\\s.*"), "a figure printed as zero: " + output);

        JsonObject document = JsonParser.parseString(Files.readString(json)).getAsJsonObject();
        JsonObject run = document.getAsJsonObject("run");
        assertEquals("tcp", run.get("transport").getAsString());
        assertEquals("TCP", run.get("link").getAsString());
        assertEquals("adaptive", run.get("mode").getAsString());
        assertFalse(run.get("emulated").getAsBoolean());
        for (String field : List.of("tool", "library", "startedAt", "jvm", "os", "host")) {
            assertFalse(run.get(field).getAsString().isBlank(), field + " in " + run);
        }
        assertTrue(run.get("cpus").getAsInt() > 0);
        JsonArray results = document.getAsJsonArray("results");
        assertEquals(4, results.size(), results.toString());
        for (var element : results) {
            JsonObject r = element.getAsJsonObject();
            String figure = r.get("test").getAsString().endsWith("_lat") ? "p50_us" : "mib_per_s";
            assertTrue(r.get(figure).getAsDouble() > 0, r.toString());
        }
        assertEquals(5, Files.readAllLines(csv).size()); // the header and a row per case
        assertEquals(List.of("send_lat.png", "write_bw.png"), Files.list(charts).map(p -> p.getFileName().toString())
                .sorted().toList());
    }

    @Test
    void figuresKeepFourSignificantDigitsWhateverTheirScale() {
        assertEquals("0.0004123", Report.f(0.00041234));
        assertEquals("12.5", Report.f(12.5));
        assertEquals("12350", Report.f(12345.6));
        assertEquals("-", Report.f(Double.NaN));
    }

    @Test
    void aFailedCaseShowsEveryCauseNotOnlyTheTopOne() {
        Exception failure = new IllegalStateException("write_bw failed",
                new RuntimeException("RDMA_WRITE failed", new IllegalArgumentException("RETRY_EXC_ERR")));
        assertEquals("java.lang.IllegalStateException: write_bw failed <- java.lang.RuntimeException: RDMA_WRITE failed"
                + " <- java.lang.IllegalArgumentException: RETRY_EXC_ERR", BenchCommand.causeChain(failure));
    }

    @Test
    void aCauseCycleEnds() {
        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b", a);
        a.initCause(b);
        assertEquals("java.lang.RuntimeException: a <- java.lang.RuntimeException: b", BenchCommand.causeChain(a));
    }
}
