package org.jrdma.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
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

    /** The README's Java block after its first line (which names an address of the reader's host). */
    private static List<String> readmeExample() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        String block = readme.substring(readme.indexOf("```java\n") + 8);
        block = block.substring(0, block.indexOf("```"));
        return block.lines().skip(1).map(String::strip).collect(Collectors.toList());
    }

    /** The program's code between the markers, without the line that prints the channel for this test. */
    private static List<String> thisExample() throws Exception {
        String source = Files.readString(Path.of("src/test/java/org/jrdma/rxe/ReadmeExample.java"));
        String block = source.substring(source.indexOf("// README begin\n") + 16, source.indexOf("        // README end"));
        return block.lines().map(String::strip).filter(l -> !l.startsWith("System.out.println(\"channel: \""))
                .collect(Collectors.toList());
    }
}
