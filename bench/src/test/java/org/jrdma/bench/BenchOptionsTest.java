package org.jrdma.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonParser;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Bad command lines are one-line usage errors (exit code 2), never a hang, a zero size or a stack trace. */
class BenchOptionsTest {

    private static String error(String... args) {
        return assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(args)).getMessage();
    }

    @Test
    void sizesTakeSuffixesAndRefuseWhatCannotBeSent() {
        assertEquals(List.of(8, 4096, 1 << 20, 1 << 30), BenchOptions.parse(new String[] {"--sizes", "8,4K,1m,1G"}).sizes);
        assertTrue(error("--sizes", "-8").contains("out of range"));
        assertTrue(error("--sizes", "0").contains("out of range"));
        assertTrue(error("--sizes", "4096M").contains("out of range")); // used to overflow to 0
        assertTrue(error("--sizes", "99999999999999999K").contains("out of range"));
        assertTrue(error("--sizes", "12x").contains("not a size"));
    }

    @Test
    void numbersAndAddressesAreCheckedWithTheOptionNamed() {
        assertTrue(error("--iters", "many").contains("--iters needs a whole number"));
        assertTrue(error("--iters", "0").contains("--iters must be 1.."));
        assertTrue(error("--window", "500").contains("--window must be 1..120"));
        assertTrue(error("--connect", "10.0.0.1").contains("IP:PORT"));
        assertTrue(error("--connect", "10.0.0.1:99999").contains("port must be 1..65535"));
        assertTrue(error("--server", "10.0.0.1:x").contains("port needs a whole number"));
        assertTrue(error("--tests", "nope").contains("unknown test"));
        assertTrue(error("--frobnicate").startsWith("unknown option --frobnicate"));
        assertEquals("10.0.0.1:7000", BenchOptions.parse(new String[] {"--connect", "10.0.0.1:7000"}).connect);
    }

    @Test
    void jsonOutputParsesWhateverTheNoteSays() {
        List<Result> results = List.of(new Result("send_lat", 64, 1000, 12.5, 20.0, Double.NaN, Double.NaN, Double.NaN,
                "a \"quoted\" note,\nwith a line break and a backslash \\"));
        JsonArray parsed = JsonParser.parseString(Report.jsonText(results)).getAsJsonArray();
        assertEquals(1, parsed.size());
        assertEquals("a \"quoted\" note,\nwith a line break and a backslash \\",
                parsed.get(0).getAsJsonObject().get("note").getAsString());
        assertEquals(12.5, parsed.get(0).getAsJsonObject().get("p50_us").getAsDouble());
        assertTrue(parsed.get(0).getAsJsonObject().get("p999_us").isJsonNull());
    }
}
