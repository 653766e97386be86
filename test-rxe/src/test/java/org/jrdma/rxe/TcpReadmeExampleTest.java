package org.jrdma.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.jrdma.Access;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaContext;
import org.jrdma.RegisteredBuffer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The README's example, unchanged, on a host without RDMA: {@code Rdma.open()} gives a TCP context
 * and every line of the example works. The example's code below is compared line by line with the
 * README's, so the two cannot drift apart.
 */
@Tag("tcp")
class TcpReadmeExampleTest {
    @Test
    void theReadmeExampleRunsOverTcp() throws Exception {
        InetSocketAddress address = new InetSocketAddress("127.0.0.1", Fabric.TCP.nextAddress().getPort());
        try (RdmaContext probe = Rdma.open()) {
            assertEquals(org.jrdma.Transport.TCP, probe.transport(), "this host has no RDMA device: auto means TCP");
        }
        PrintStream out = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            // README begin
            try (RdmaContext ctx = Rdma.open()) {                         // the RDMA device, or TCP where there is none
                ctx.listen(address,                                        // server: say what arrives
                        (channel, message) -> System.out.println("received " + message.length() + " bytes"));
                RdmaChannel channel = ctx.connect(address, (ch, m) -> { }).join();
                RegisteredBuffer buffer = ctx.allocate(4096);              // registered memory from the context's pool
                buffer.buffer().put("hello over RDMA".getBytes(StandardCharsets.UTF_8));
                channel.send(buffer, 0, 15).join();                        // completes once the peer's HCA has it
                RegisteredBuffer big = ctx.allocate(64 << 20);             // any size: read by the peer by rendezvous
                channel.send(big, 0, 64 << 20).join();                     // completes once the peer has every byte
                RegisteredBuffer exposed = ctx.allocate(4096, Access.REMOTE_WRITE);
                channel.write(buffer, 0, exposed.remote(), 0, 15).join();  // one-sided write into the peer's memory
            }
            // README end
        } finally {
            System.setOut(out);
        }
        String text = printed.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("received 15 bytes"), text);
        assertTrue(text.contains("received 67108864 bytes"), text);
        assertEquals(readmeExample(), thisExample(), "the example here is the README's");
    }

    /** The README's Java block after its first line (which names an address of the reader's host). */
    private static List<String> readmeExample() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        String block = readme.substring(readme.indexOf("```java\n") + 8);
        block = block.substring(0, block.indexOf("```"));
        return block.lines().skip(1).map(String::strip).collect(Collectors.toList());
    }

    private static List<String> thisExample() throws Exception {
        String source = Files.readString(Path.of("src/test/java/org/jrdma/rxe/TcpReadmeExampleTest.java"));
        String block = source.substring(source.indexOf("// README begin\n") + 16, source.indexOf("            // README end"));
        return block.lines().map(String::strip).collect(Collectors.toList());
    }
}
