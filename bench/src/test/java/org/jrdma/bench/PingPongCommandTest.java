package org.jrdma.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code pingpong} as a newcomer runs it without RDMA (RDMA_TRANSPORT, in a JVM of its own): it names
 * the transport in its own words (no port, GID or MTU over TCP) and reports percentiles, not only an
 * average.
 */
class PingPongCommandTest {
    private static final Pattern ROUND_TRIP = Pattern.compile("round trip: p50 ([0-9.]+) us, p99 ([0-9.]+) us,"
            + " p99\\.9 ([0-9.]+) us, average ([0-9.]+) us \\(2000 round trips after 2000 to warm up\\)");

    @ParameterizedTest
    @CsvSource({"tcp, TCP", "shm, shared memory (same host)"})
    void itNamesTheTransportAndReportsPercentiles(String transport, String words) throws Exception {
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(javaBin, "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "pingpong").redirectErrorStream(true);
        builder.environment().put("RDMA_TRANSPORT", transport);
        Process process = builder.start();
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "pingpong did not finish");
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), output);
        assertTrue(output.contains("pingpong over " + words + ": 2000 round trips of 64 bytes"), output);
        assertFalse(output.contains("gid") || output.contains("mtu"), "verbs words over " + transport + ": " + output);
        Matcher m = ROUND_TRIP.matcher(output);
        assertTrue(m.find(), output);
        double p50 = Double.parseDouble(m.group(1));
        double p99 = Double.parseDouble(m.group(2));
        double p999 = Double.parseDouble(m.group(3));
        assertTrue(p50 > 0 && p50 <= p99 && p99 <= p999, "percentiles in order: " + m.group());
    }
}
