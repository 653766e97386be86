package org.jrdma.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code scale} without RDMA (in a JVM of its own): bursts of channels open, stream and close, a row each, and
 * every file the channels held is closed again (the process's count after a burst is its count before).
 */
class ScaleCommandTest {
    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void burstsOpenStreamAndCloseAndGiveTheirFilesBack(String transport, @TempDir Path dir) throws Exception {
        Path csv = dir.resolve("scale.csv");
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(javaBin, "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "scale", "--channels", "1,16", "--seconds", "1", "--size", "8192", "--csv",
                csv.toString(), "--plot", dir.resolve("charts").toString()).redirectErrorStream(true);
        builder.environment().put("RDMA_TRANSPORT", transport);
        Process process = builder.start();
        assertTrue(process.waitFor(180, TimeUnit.SECONDS), "scale did not finish");
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), output);
        List<String> rows = Files.readAllLines(csv);
        assertEquals(3, rows.size(), "a header and a row per burst: " + rows);
        for (String row : rows.subList(1, rows.size())) {
            String[] f = row.split(",");
            int channels = Integer.parseInt(f[0]);
            assertTrue(Double.parseDouble(f[1]) > 0, "a set-up rate: " + row);
            assertEquals(Integer.parseInt(f[7]), Integer.parseInt(f[9]), "files before and after the burst: " + row);
            assertTrue(Integer.parseInt(f[8]) >= Integer.parseInt(f[7]) + channels,
                    "each channel holds a socket while open: " + row);
            assertTrue(Double.parseDouble(f[10]) > 0, "messages streamed: " + row);
        }
        assertEquals(2, ScaleCommand.readCsv(csv).size(), "the CSV reads back");
        for (String chart : List.of("memory.png", "closed.png", "setup.png", "throughput.png", "cpu.png")) {
            assertTrue(Files.size(dir.resolve("charts").resolve(chart)) > 1000, chart);
        }
    }
}
