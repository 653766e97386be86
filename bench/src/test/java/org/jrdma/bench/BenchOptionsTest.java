package org.jrdma.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.jrdma.PollMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** Bad command lines are one-line usage errors (exit code 2), never a hang, a zero size or a stack trace. */
class BenchOptionsTest {
    /** What a command line printed and returned. */
    record Outcome(int status, String out, String err) {
    }

    static Outcome run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int status = cli.execute(args);
        return new Outcome(status, out.toString(), err.toString());
    }

    /** The one line of a usage error (exit code 2). */
    private static String error(String... args) {
        Outcome o = run(args);
        assertEquals(2, o.status(), String.join(" ", args) + " -> " + o);
        assertEquals(1, o.err().lines().count(), "one line: " + o.err());
        assertTrue(o.out().isEmpty(), o.out());
        return o.err();
    }

    private static BenchOptions parse(String... args) {
        BenchCommand command = new BenchCommand();
        new CommandLine(command).setCaseInsensitiveEnumValuesAllowed(true).parseArgs(args);
        return command.options;
    }

    @Test
    void sizesTakeSuffixesAndRefuseWhatCannotBeSent() {
        assertEquals(List.of(8, 4096, 1 << 20, 1 << 30), parse("--sizes", "8,4K,1m,1G").sizes);
        assertTrue(error("bench", "--sizes", "-8").contains("out of range"));
        assertTrue(error("bench", "--sizes", "0").contains("out of range"));
        assertTrue(error("bench", "--sizes", "4096M").contains("out of range")); // used to overflow to 0
        assertTrue(error("bench", "--sizes", "99999999999999999K").contains("out of range"));
        assertTrue(error("bench", "--sizes", "12x").contains("not a size"));
    }

    @Test
    void numbersAndAddressesAreCheckedWithTheOptionNamed() {
        assertTrue(error("bench", "--iters", "many").matches("(?s).*--iters.*'many' is not a whole number.*"));
        assertTrue(error("bench", "--iters", "0").contains("allowed: 1..100000000"));
        assertTrue(error("bench", "--window", "500").matches("(?s).*--window.*allowed: 1..120.*"));
        assertTrue(error("bench", "--connect", "10.0.0.1").contains("is not IP:PORT"));
        assertTrue(error("bench", "--connect", "10.0.0.1:99999").contains("allowed: 1..65535"));
        assertTrue(error("bench", "--server", "10.0.0.1:x").contains("not a whole number"));
        assertTrue(error("bench", "--connect", "no-such-host.invalid:7000").contains("unknown host"));
        assertTrue(error("bench", "--tests", "nope").contains("unknown test 'nope'"));
        assertTrue(error("bench", "--mode", "spin").contains("--mode"));
        assertTrue(error("bench", "--frobnicate").contains("Unknown option: '--frobnicate'"));
        assertTrue(error("frobnicate").contains("Unmatched argument"));
        assertTrue(error("alloc", "-5").contains("alloc"));
        assertTrue(error("idle-cpu", "--seconds", "0").contains("allowed: 1..3600"));
        assertTrue(error("pingpong", "1.2.3.4", "5.6.7.8", "9.9.9.9").contains("Unmatched argument"));
        assertTrue(error("bench", "--server", "127.0.0.1:7000", "--connect", "127.0.0.1:7000")
                .contains("--server and --connect together"));
        assertTrue(error("bench", "--json", "/no/such/dir/results.json").contains("/no/such/dir/results.json does not exist"));
        assertTrue(error("bench", "--csv", "/no/such/dir/results.csv").contains("does not exist"));
        assertTrue(error("bench", "--plot", "/proc/charts").contains("cannot create /proc/charts for --plot"));
        BenchOptions options = parse("--connect", "10.0.0.1:7000", "--mode", "BUSY", "--iters", "7");
        assertEquals(new InetSocketAddress("10.0.0.1", 7000), options.connect);
        assertEquals(PollMode.BUSY, options.pollMode);
        assertEquals(7, options.latencyIterations);
        assertEquals(7, options.bandwidthIterations);
    }

    @ParameterizedTest
    @ValueSource(strings = {"devices", "pingpong", "bench", "keyed", "kv", "alloc", "idle-cpu", "compare-report", "jmh"})
    void everyCommandHasHelp(String command) {
        Outcome o = run(command, "--help");
        assertEquals(0, o.status(), o.toString());
        assertTrue(o.out().startsWith("Usage: jrdma-bench " + command), o.out());
        assertTrue(o.err().isEmpty(), o.err());
    }

    @Test
    void theJmhCommandFindsTheHotPathBenchmarks() throws Exception {
        // They live in java-impl's test sources, beside what they measure; its jmh jar brings them here.
        try (var in = Main.class.getClassLoader().getResourceAsStream("META-INF/BenchmarkList")) {
            assertTrue(in != null, "no JMH benchmark list on the bench tool's class path");
            String list = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(list.contains("org.jrdma.impl.HotPathBenchmarks"), list);
        }
    }

    @Test
    void theToolHasHelpAndAVersion() {
        Outcome help = run("--help");
        assertEquals(0, help.status());
        assertTrue(help.out().contains("Commands:") && help.out().contains("idle-cpu"), help.out());
        Outcome version = run("--version");
        assertEquals(0, version.status());
        assertTrue(version.out().startsWith("jrdma-bench "), version.out());
    }

    @Test
    void jsonOutputParsesWhateverTheNoteSays() {
        List<Result> results = List.of(new Result("send_lat", 64, 1000, 12.5, 20.0, Double.NaN, Double.NaN, Double.NaN,
                "a \"quoted\" note,\nwith a line break and a backslash \\"));
        RunInfo run = new RunInfo("1.0", "1.0", "2026-12-04T00:00:00Z", "tcp", "TCP", false, "busy", 64, 200, "jvm", "os",
                "host", 2);
        JsonObject document = JsonParser.parseString(Report.jsonText(run, results)).getAsJsonObject();
        assertEquals("busy", document.getAsJsonObject("run").get("mode").getAsString());
        JsonArray parsed = document.getAsJsonArray("results");
        assertEquals(1, parsed.size());
        assertEquals("a \"quoted\" note,\nwith a line break and a backslash \\",
                parsed.get(0).getAsJsonObject().get("note").getAsString());
        assertEquals(12.5, parsed.get(0).getAsJsonObject().get("p50_us").getAsDouble());
        assertTrue(parsed.get(0).getAsJsonObject().get("p999_us").isJsonNull());
    }

    @Test
    void csvRowsKeepCommasAndQuotesOfTheNote() throws Exception {
        Result r = new Result("read_bw", 65536, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                "FAILED: \"x\", then y\nand z");
        String line = Report.csvRow(r);
        assertEquals(1, line.lines().count(), line);
        assertEquals(List.of("read_bw", "65536", "0", "", "", "", "", "", "FAILED: \"x\", then y and z"), Report.csvFields(line));
    }
}
