package org.jrdma.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The examples as a user runs them: separate JVMs on this host, over TCP and over shared memory
 * (RDMA_TRANSPORT), each checking what it received; servers and producers are killed at the end.
 */
class ExamplesTest {
    private final List<Process> processes = new ArrayList<>();

    private Process start(String transport, BlockingQueue<String> lines, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Examples.class.getName()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(Map.of("RDMA_TRANSPORT", transport));
        Process process = builder.start();
        processes.add(process);
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the process ended
            }
        });
        reader.setDaemon(true);
        reader.start();
        return process;
    }

    private static String awaitLine(BlockingQueue<String> lines, String containing) throws InterruptedException {
        for (;;) {
            String line = lines.poll(120, TimeUnit.SECONDS);
            assertTrue(line != null, "no line with [" + containing + "]");
            if (line.contains(containing)) {
                return line;
            }
        }
    }

    private static String freeAddress() throws IOException {
        try (ServerSocket probe = new ServerSocket(0)) {
            return "127.0.0.1:" + probe.getLocalPort();
        }
    }

    private void killAll() {
        processes.forEach(Process::destroyForcibly);
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void twoServersAndThreeWorkersAgreeOnTheSums(String transport) throws Exception {
        try {
            List<String> servers = new ArrayList<>();
            for (int s = 0; s < 2; s++) {
                BlockingQueue<String> lines = new LinkedBlockingQueue<>();
                String address = freeAddress();
                start(transport, lines, "kv-server", address);
                awaitLine(lines, "kv-server listening");
                servers.add(address);
            }
            List<Process> workers = new ArrayList<>();
            List<BlockingQueue<String>> outputs = new ArrayList<>();
            for (int w = 0; w < 3; w++) {
                BlockingQueue<String> lines = new LinkedBlockingQueue<>();
                List<String> args = new ArrayList<>(List.of("kv-worker", "" + w, "3"));
                args.addAll(servers);
                workers.add(start(transport, lines, args.toArray(String[]::new)));
                outputs.add(lines);
            }
            for (int w = 0; w < 3; w++) {
                String line = awaitLine(outputs.get(w), "kv-worker " + w);
                assertTrue(line.contains("every element = 18.0"), line); // 3 rounds x (1 + 2 + 3)
                assertTrue(workers.get(w).waitFor(60, TimeUnit.SECONDS), "worker " + w + " did not end");
                assertEquals(0, workers.get(w).exitValue(), "worker " + w);
            }
        } finally {
            killAll();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void aConsumerFetchesEveryStepOfTheProducersTensor(String transport) throws Exception {
        try {
            BlockingQueue<String> producer = new LinkedBlockingQueue<>();
            String address = freeAddress();
            start(transport, producer, "keyed-producer", address, "3");
            awaitLine(producer, "keyed-producer publishing");
            BlockingQueue<String> lines = new LinkedBlockingQueue<>();
            Process consumer = start(transport, lines, "keyed-consumer", address, "3");
            for (int step = 1; step <= 3; step++) {
                String line = awaitLine(lines, "step " + step + ":");
                assertTrue(line.contains("1048576 bytes") && line.contains("CRC-32C checked"), line);
            }
            assertTrue(consumer.waitFor(60, TimeUnit.SECONDS), "the consumer did not end");
            assertEquals(0, consumer.exitValue());
        } finally {
            killAll();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void aGrpcClientCallsTheServerOverJrdmaNetty(String transport) throws Exception {
        try {
            BlockingQueue<String> server = new LinkedBlockingQueue<>();
            String address = freeAddress();
            start(transport, server, "grpc-server", address);
            awaitLine(server, "grpc-server listening");
            BlockingQueue<String> lines = new LinkedBlockingQueue<>();
            Process client = start(transport, lines, "grpc-client", address, transport);
            awaitLine(lines, "grpc-client: hello, " + transport);
            awaitLine(lines, "grpc-client: streamed 1000 messages in order");
            assertTrue(client.waitFor(60, TimeUnit.SECONDS), "the client did not end");
            assertEquals(0, client.exitValue());
        } finally {
            killAll();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void anEchoClientGetsEachMessageBack(String transport) throws Exception {
        try {
            BlockingQueue<String> server = new LinkedBlockingQueue<>();
            String address = freeAddress();
            start(transport, server, "echo-server", address);
            awaitLine(server, "echo-server listening");
            BlockingQueue<String> lines = new LinkedBlockingQueue<>();
            Process client = start(transport, lines, "echo-client", address, "1000");
            awaitLine(lines, "echo-client: 1000 round trips of 64 B checked");
            assertTrue(client.waitFor(60, TimeUnit.SECONDS), "the client did not end");
            assertEquals(0, client.exitValue());
        } finally {
            killAll();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void aLargeFileArrivesWholeByRendezvous(String transport, @TempDir Path directory) throws Exception {
        try {
            Path outbox = Files.createDirectory(directory.resolve("out"));
            Path inbox = Files.createDirectory(directory.resolve("in"));
            byte[] content = new byte[(40 << 20) + 12345]; // three 16 MiB messages, the last one short
            new Random(11).nextBytes(content);
            Files.write(outbox.resolve("weights.bin"), content);
            BlockingQueue<String> receiver = new LinkedBlockingQueue<>();
            String address = freeAddress();
            start(transport, receiver, "file-receiver", address, inbox.toString());
            awaitLine(receiver, "file-receiver listening");
            BlockingQueue<String> lines = new LinkedBlockingQueue<>();
            Process sender = start(transport, lines, "file-sender", address, outbox.resolve("weights.bin").toString());
            String sent = awaitLine(lines, "file-sender: weights.bin");
            String received = awaitLine(receiver, "file-receiver: weights.bin");
            assertTrue(sender.waitFor(60, TimeUnit.SECONDS), "the sender did not end");
            assertEquals(0, sender.exitValue());
            String hash = sent.substring(sent.indexOf("sha256 "));
            assertTrue(received.endsWith(hash), received + " vs " + sent);
            assertArrayEquals(content, Files.readAllBytes(inbox.resolve("weights.bin")));
        } finally {
            killAll();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void aClientWorksInTheServersMemoryOneSidedly(String transport) throws Exception {
        try {
            BlockingQueue<String> server = new LinkedBlockingQueue<>();
            String address = freeAddress();
            start(transport, server, "memory-server", address);
            awaitLine(server, "memory-server listening");
            BlockingQueue<String> lines = new LinkedBlockingQueue<>();
            Process client = start(transport, lines, "memory-client", address);
            awaitLine(lines, "memory-client: read \"read one-sidedly from the server's memory\"");
            String line = awaitLine(lines, "memory-client: wrote and read back 1048576 bytes");
            assertTrue(line.contains("released"), line);
            assertTrue(client.waitFor(60, TimeUnit.SECONDS), "the client did not end");
            assertEquals(0, client.exitValue());
        } finally {
            killAll();
        }
    }
}
