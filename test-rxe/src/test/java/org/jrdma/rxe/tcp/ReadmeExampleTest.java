package org.jrdma.rxe.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.jrdma.rxe.contract.Fabric;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The README's example, unchanged, on a host without RDMA: run as a program ({@link ReadmeExample})
 * with RDMA_TRANSPORT=tcp, =shm and unset (auto: TCP with shared memory for this same-host channel),
 * every line of it works; its code is compared line by line with the README's, so the two cannot
 * drift apart.
 */
@Tag("tcp")
class ReadmeExampleTest {
    @Test
    void theReadmeExampleRunsOverTcpOverSharedMemoryAndWithTheDefaults() throws Exception {
        for (String transport : new String[] {"tcp", "shm", ""}) {
            String output = run(transport);
            assertTrue(output.contains("received 15 bytes"), transport + ": " + output);
            assertTrue(output.contains("received 67108864 bytes"), transport + ": " + output);
            boolean shared = output.contains("shared memory");
            assertEquals(!transport.equals("tcp"), shared, transport + ": " + output);
        }
        assertEquals(readmeExample(), thisExample(), "the example is the README's");
        // Pasteable: the README has the program's imports, and a class and main around the code.
        List<String> imports = Files.readAllLines(Path.of("src/test/java/org/jrdma/rxe/tcp/ReadmeExample.java")).stream()
                .filter(l -> l.startsWith("import ")).collect(Collectors.toList());
        assertEquals(imports, readmeBlock().stream().filter(l -> l.startsWith("import ")).collect(Collectors.toList()));
        assertTrue(readmeBlock().contains("public static void main(String[] args) {"), "a main method");
    }

    private static String run(String transport) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                ReadmeExample.class.getName(), Integer.toString(Fabric.TCP.nextAddress().getPort())).redirectErrorStream(true);
        builder.environment().remove("RDMA_TRANSPORT");
        if (!transport.isEmpty()) {
            builder.environment().put("RDMA_TRANSPORT", transport);
        }
        Process process = builder.start();
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "the example did not finish");
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), output);
        return output;
    }

    /** The README's Java block: a whole program, so that it can be pasted (its lines, stripped). */
    private static List<String> readmeBlock() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        String block = readme.substring(readme.indexOf("```java\n") + 8);
        block = block.substring(0, block.indexOf("```"));
        return block.lines().map(String::strip).collect(Collectors.toList());
    }

    /** The README program's body from its try on, as many lines as this program's (the address line names the reader's host). */
    private static List<String> readmeExample() throws Exception {
        List<String> lines = readmeBlock();
        int from = lines.indexOf(lines.stream().filter(l -> l.startsWith("try (RdmaContext")).findFirst().orElseThrow());
        return lines.subList(from, Math.min(lines.size(), from + thisExample().size()));
    }

    /** The program's code between the markers, without the line that prints the channel for this test. */
    private static List<String> thisExample() throws Exception {
        String source = Files.readString(Path.of("src/test/java/org/jrdma/rxe/tcp/ReadmeExample.java"));
        String block = source.substring(source.indexOf("// README begin\n") + 16, source.indexOf("        // README end"));
        return block.lines().map(String::strip).filter(l -> !l.startsWith("System.out.println(\"channel: \""))
                .collect(Collectors.toList());
    }
}
