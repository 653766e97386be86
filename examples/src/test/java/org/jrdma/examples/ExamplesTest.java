package org.jrdma.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The examples as a user runs them: separate JVMs on this host, over TCP and over shared memory
 * (RDMA_TRANSPORT), each checking what it received; servers and producers are killed at the end.
 */
class ExamplesTest {
    private static int nextPort = 12000 + (int) (ProcessHandle.current().pid() % 100) * 100;
    private final List<Process> processes = new ArrayList<>();

    private Process start(String transport, BlockingQueue<String> lines, String... args) throws IOException {
        return start(Map.of("RDMA_TRANSPORT", transport), lines, args);
    }

    private Process start(Map<String, String> environment, BlockingQueue<String> lines, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Examples.class.getName()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(environment);
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
        List<String> seen = new ArrayList<>();
        for (;;) {
            String line = lines.poll(120, TimeUnit.SECONDS);
            assertTrue(line != null, "no line with [" + containing + "] after " + seen);
            if (line.contains(containing)) {
                return line;
            }
            seen.add(line);
        }
    }

    /**
     * A free port below the kernel's ephemeral range (32768 up): a port from bind(0) was free only until
     * the processes started, and their own listeners and connections take ephemeral ports — one of them
     * took a job's scheduler port once, and the job never filled.
     */
    private static String freeAddress() {
        for (;;) {
            int port = nextPort++;
            try (ServerSocket probe = new ServerSocket()) {
                probe.setReuseAddress(true); // as the library's listeners: a port in TIME_WAIT is free
                probe.bind(new InetSocketAddress("127.0.0.1", port));
                return "127.0.0.1:" + port;
            } catch (IOException inUse) {
                // taken by another process: the next one
            }
        }
    }

    @AfterEach
    void killAll() {
        processes.forEach(Process::destroyForcibly);
    }

    /** A server's output and its client's: the server was started on a free address and said it is ready. */
    private record ServerAndClient(BlockingQueue<String> server, BlockingQueue<String> client, Process clientProcess) { }

    /**
     * Starts {@code server} (its example name, then a free HOST:PORT, then the rest), waits for its line
     * containing {@code ready}, then starts {@code client} the same way against it.
     */
    private ServerAndClient serverAndClient(String transport, String ready, List<String> server, List<String> client)
            throws Exception {
        String address = freeAddress();
        BlockingQueue<String> serverLines = new LinkedBlockingQueue<>();
        start(transport, serverLines, withAddress(server, address));
        awaitLine(serverLines, ready);
        BlockingQueue<String> clientLines = new LinkedBlockingQueue<>();
        Process clientProcess = start(transport, clientLines, withAddress(client, address));
        return new ServerAndClient(serverLines, clientLines, clientProcess);
    }

    private static String[] withAddress(List<String> command, String address) {
        List<String> args = new ArrayList<>(command);
        args.add(1, address);
        return args.toArray(String[]::new);
    }

    private static void awaitSuccess(Process process) throws InterruptedException {
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the process did not end");
        assertEquals(0, process.exitValue());
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void twoServersAndThreeWorkersAgreeOnTheSums(String transport) throws Exception {
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
    }

    /** Starts kv-node with the job's RDMA_KV_* variables and {@code role}. */
    private Process startNode(String transport, BlockingQueue<String> lines, String scheduler, String role) throws IOException {
        return start(Map.of("RDMA_TRANSPORT", transport, "RDMA_KV_ROLE", role, "RDMA_KV_SCHEDULER", scheduler,
                "RDMA_KV_NUM_WORKERS", "3", "RDMA_KV_NUM_SERVERS", "2"), lines, "kv-node");
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void aJobStartedFromItsVariablesInAnyOrderAgreesOnTheSumsAndFinishes(String transport) throws Exception {
        String scheduler = freeAddress();
        List<Process> nodes = new ArrayList<>();
        List<BlockingQueue<String>> workers = new ArrayList<>();
        for (int w = 0; w < 3; w++) { // the workers first: they wait for the scheduler
            BlockingQueue<String> lines = new LinkedBlockingQueue<>();
            nodes.add(startNode(transport, lines, scheduler, "worker"));
            workers.add(lines);
        }
        for (int s = 0; s < 2; s++) {
            nodes.add(startNode(transport, new LinkedBlockingQueue<>(), scheduler, "server"));
        }
        BlockingQueue<String> schedulerLines = new LinkedBlockingQueue<>();
        nodes.add(startNode(transport, schedulerLines, scheduler, "scheduler"));
        List<String> ranks = new ArrayList<>();
        for (BlockingQueue<String> lines : workers) {
            String line = awaitLine(lines, "kv-node worker");
            assertTrue(line.contains("every element = 18.0") && line.contains("over 2 servers"), line); // 3 rounds x (1 + 2 + 3)
            ranks.add(line.substring(0, line.indexOf(':')));
        }
        assertEquals(List.of("kv-node worker 0", "kv-node worker 1", "kv-node worker 2"), ranks.stream().sorted().toList());
        awaitLine(schedulerLines, "kv-node scheduler 0: finished");
        for (Process node : nodes) {
            awaitSuccess(node);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void aConsumerFetchesEveryStepOfTheProducersTensor(String transport) throws Exception {
        ServerAndClient run = serverAndClient(transport, "keyed-producer publishing", List.of("keyed-producer", "3"),
                List.of("keyed-consumer", "3"));
        for (int step = 1; step <= 3; step++) {
            String line = awaitLine(run.client(), "step " + step + ":");
            assertTrue(line.contains("1048576 bytes") && line.contains("CRC-32C checked"), line);
        }
        awaitSuccess(run.clientProcess());
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void aGrpcClientCallsTheServerOverJrdmaNetty(String transport) throws Exception {
        ServerAndClient run = serverAndClient(transport, "grpc-server listening", List.of("grpc-server"),
                List.of("grpc-client", transport));
        awaitLine(run.client(), "grpc-client: hello, " + transport);
        awaitLine(run.client(), "grpc-client: streamed 1000 messages in order");
        awaitSuccess(run.clientProcess());
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void aSimpleClientGetsItsAnswersAndARefusal(String transport) throws Exception {
        ServerAndClient run = serverAndClient(transport, "simple-server listening", List.of("simple-server"),
                List.of("simple-client"));
        String line = awaitLine(run.client(), "simple-client: \"PUSH PULL AND SIMPLE REQUESTS OVER ONE CHANNEL\", 8 words");
        assertTrue(line.contains("head 9 refused") && line.contains("no head 9 here"), line);
        awaitSuccess(run.clientProcess());
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void anEchoClientGetsEachMessageBack(String transport) throws Exception {
        ServerAndClient run = serverAndClient(transport, "echo-server listening", List.of("echo-server"),
                List.of("echo-client", "1000"));
        awaitLine(run.client(), "echo-client: 1000 round trips of 64 B checked");
        awaitSuccess(run.clientProcess());
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void aLargeFileArrivesWholeByRendezvous(String transport, @TempDir Path directory) throws Exception {
        Path outbox = Files.createDirectory(directory.resolve("out"));
        Path inbox = Files.createDirectory(directory.resolve("in"));
        byte[] content = new byte[(40 << 20) + 12345]; // three 16 MiB messages, the last one short
        new Random(11).nextBytes(content);
        Files.write(outbox.resolve("weights.bin"), content);
        ServerAndClient run = serverAndClient(transport, "file-receiver listening", List.of("file-receiver", inbox.toString()),
                List.of("file-sender", outbox.resolve("weights.bin").toString()));
        String sent = awaitLine(run.client(), "file-sender: weights.bin");
        String received = awaitLine(run.server(), "file-receiver: weights.bin");
        awaitSuccess(run.clientProcess());
        String hash = sent.substring(sent.indexOf("sha256 "));
        assertTrue(received.endsWith(hash), received + " vs " + sent);
        assertArrayEquals(content, Files.readAllBytes(inbox.resolve("weights.bin")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void aClientWorksInTheServersMemoryOneSidedly(String transport) throws Exception {
        ServerAndClient run = serverAndClient(transport, "memory-server listening", List.of("memory-server"),
                List.of("memory-client"));
        awaitLine(run.client(), "memory-client: read \"read one-sidedly from the server's memory\"");
        String line = awaitLine(run.client(), "memory-client: wrote and read back 1048576 bytes");
        assertTrue(line.contains("released"), line);
        awaitSuccess(run.clientProcess());
    }
}
