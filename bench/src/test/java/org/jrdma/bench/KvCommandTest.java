package org.jrdma.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code kv} over a transport a newcomer has (RDMA_TRANSPORT, in a JVM of its own): one row per value
 * size, servers, workers and operation — small values by messages, large ones through write slots and
 * kept-registered blocks — each with a positive rate, ordered percentiles, the spread of its runs and
 * the write ceiling it is compared to.
 */
class KvCommandTest {
    private static final Pattern ROW = Pattern.compile("^\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(push|pull|pushpull)\\s+([0-9.]+)"
            + "\\s+([0-9.]+)\\s+([0-9.]+)\\s+\\(([0-9.]+)-([0-9.]+)\\)\\s+([0-9.]+)\\s+([0-9.]+)x$", Pattern.MULTILINE);

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void everyCellOfTheMatrixIsMeasuredNextToTheWriteCeiling(String transport) throws Exception {
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(javaBin, "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "kv", "--sizes", "4K,2M", "--servers", "2", "--workers", "1,2", "--bytes", "8M",
                "--runs", "2").redirectErrorStream(true);
        builder.environment().put("RDMA_TRANSPORT", transport);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "kv did not finish");
        assertEquals(0, process.exitValue(), output);
        assertTrue(output.contains("2 run(s) per cell"), output);
        List<String> cells = new ArrayList<>();
        Matcher m = ROW.matcher(output);
        while (m.find()) {
            cells.add(m.group(1) + " " + m.group(2) + " " + m.group(3) + " " + m.group(4));
            double p50 = Double.parseDouble(m.group(5));
            double p99 = Double.parseDouble(m.group(6));
            double rate = Double.parseDouble(m.group(7));
            double min = Double.parseDouble(m.group(8));
            double max = Double.parseDouble(m.group(9));
            double write = Double.parseDouble(m.group(10));
            assertTrue(p50 > 0 && p50 <= p99, "percentiles in order: " + m.group());
            assertTrue(rate > 0 && min <= rate && rate <= max && write > 0, "rates: " + m.group());
        }
        List<String> expected = new ArrayList<>();
        for (String size : List.of("4096", "2097152")) {
            for (String workers : List.of("1", "2")) {
                for (String op : List.of("push", "pull", "pushpull")) {
                    expected.add(size + " 2 " + workers + " " + op);
                }
            }
        }
        assertEquals(expected, cells, output);
    }
}
