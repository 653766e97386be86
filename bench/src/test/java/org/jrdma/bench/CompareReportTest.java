package org.jrdma.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** compare-report on rounds written the way bench/vm-compare.sh writes them. */
class CompareReportTest {
    private static final String LAT_HEADER = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]"
            + "    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n";
    private static final String BW_HEADER = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n";

    private static void round(Path dir, int round, double perftestLatency, double javaLatency, double perftestBw,
                              double javaBw) throws Exception {
        Path r = Files.createDirectories(dir.resolve("round-" + round));
        Files.writeString(r.resolve("perftest-send_lat-64.txt"), "---\n" + LAT_HEADER + String.format(Locale.ROOT,
                " 64      1000          35.62          2278.32      %.2f    \t       61.24       \t59.64  \t\t253.79  \t\t2278.32\n",
                perftestLatency));
        // perftest -e and the event mode: twice the busy figures, 1.10 of them for jrdma
        Files.writeString(r.resolve("perftest-e-send_lat-64.txt"), "---\n" + LAT_HEADER + String.format(Locale.ROOT,
                " 64      1000          35.62          2278.32      %.2f    \t       61.24       \t59.64  \t\t253.79  \t\t2278.32\n",
                2 * perftestLatency));
        Files.writeString(r.resolve("java-event.csv"), Report.CSV_HEADER + "\n"
                + String.format(Locale.ROOT, "send_lat,64,1000,%.4f,300.0,500.0,,,\n", 2.2 * perftestLatency));
        Files.writeString(r.resolve("perftest-write_bw-65536.txt"), "---\n" + BW_HEADER + String.format(Locale.ROOT,
                " 65536      1000           99.00              %.2f\t\t   0.000312\n", perftestBw));
        Files.writeString(r.resolve("java-busy.csv"), Report.CSV_HEADER + "\n"
                + String.format(Locale.ROOT, "send_lat,64,1000,%.4f,300.0,500.0,,,\n", javaLatency)
                + String.format(Locale.ROOT, "write_bw,65536,1000,,,,%.4f,0.0003,\n", javaBw)
                + "read_bw,65536,0,,,,,,FAILED: no answer from the Java client within 900 s\n");
    }

    @Test
    void mediansOfPerRoundRatiosTheirRangeAndTheTargets(@TempDir Path dir) throws Exception {
        round(dir, 1, 50, 55, 20, 19); // ratios 1.10 and 0.95
        round(dir, 2, 40, 60, 20, 21); // 1.50 and 1.05
        round(dir, 3, 60, 60, 10, 12); // 1.00 and 1.20
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        assertEquals(0, CompareReport.run(dir, dir.resolve("charts"), new PrintStream(bytes, true, StandardCharsets.UTF_8)));
        String report = bytes.toString(StandardCharsets.UTF_8);
        String sendLat = report.lines().filter(l -> l.startsWith("send_lat")).findFirst().orElseThrow();
        // perftest median 50.00, perftest -e 100.00; java-busy median 60.00, ratio median 1.10, range 1.00-1.50;
        // java-adaptive absent; java-event 110.00, 1.10 of perftest -e; java-caller and native absent
        assertTrue(sendLat.matches("send_lat\\s+64\\s+50\\.00\\s+100\\.00\\s+60\\.00\\s+1\\.10\\s+1\\.00-1\\.50"
                + "\\s+-\\s+-\\s+110\\.00\\s+1\\.10(\\s+-){4}"), sendLat);
        String writeBw = report.lines().filter(l -> l.startsWith("write_bw")).findFirst().orElseThrow();
        assertTrue(writeBw.matches("write_bw\\s+65536\\s+20\\.00\\s+-\\s+19\\.00\\s+1\\.05\\s+0\\.95-1\\.20(\\s+-){8}"),
                writeBw);
        assertTrue(report.contains("event: send/recv p50 vs -e, 64 B     <= 1.15: median 1.10, rounds 1.10 1.10 1.10, met in 3 of 3"),
                report);
        assertTrue(report.contains("median 1.10, rounds 1.10 1.50 1.00, met in 2 of 3"), report);
        assertTrue(report.contains("median 1.05, rounds 0.95 1.05 1.20, met in 3 of 3"), report);
        assertTrue(report.contains("busy: read bandwidth, 64 KiB         >= 0.95: median -, rounds - - -, met in 0 of 0"), report);
    }
}
