package org.jrdma.rxe.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A push/pull job as ps-lite deploys one: every node its own JVM ({@link KvJobPeer}) started from
 * {@code RDMA_KV_*} variables. A whole job pushes, pulls and finishes; then nodes are killed
 * (SIGKILL: no orderly close) — the scheduler while nodes wait to join or in a barrier, a server
 * while a worker pushes to it — and every survivor fails with a KvException that says what went
 * away, and exits, instead of hanging. Over TCP and shared memory on the host, verbs in the VM.
 */
public abstract class KvJobProcessesContract {
    protected abstract Fabric fabric();

    private static final long WAIT_S = 240;
    private final List<Process> processes = new ArrayList<>();

    /** A started node and its output lines. */
    private record Node(Process process, BlockingQueue<String> lines, List<String> seen) {
        /** Waits (bounded) for a line starting with {@code prefix}; returns it. */
        String await(String prefix) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
            while (System.nanoTime() < deadline) {
                String line = lines.poll(1, TimeUnit.SECONDS);
                if (line != null) {
                    seen.add(line);
                    if (line.startsWith(prefix)) {
                        return line;
                    }
                }
            }
            throw new AssertionError("the node did not print " + prefix + "...; it printed " + seen);
        }

        /** Waits (bounded) for the process to exit; returns its status. */
        int exit() throws InterruptedException {
            assertTrue(process.waitFor(WAIT_S, TimeUnit.SECONDS), "the node did not exit; it printed " + seen);
            return process.exitValue();
        }
    }

    @AfterEach
    void killNodes() {
        processes.forEach(Process::destroyForcibly);
    }

    private Node start(String role, InetSocketAddress scheduler, int workers, int servers, String... args) throws Exception {
        Map<String, String> env = new HashMap<>(Map.of("RDMA_KV_ROLE", role, "RDMA_KV_NUM_WORKERS", "" + workers,
                "RDMA_KV_NUM_SERVERS", "" + servers, "RDMA_KV_JOIN_TIMEOUT_MS", "" + TimeUnit.SECONDS.toMillis(WAIT_S),
                "RDMA_KV_SCHEDULER", scheduler.getAddress().getHostAddress() + ":" + scheduler.getPort()));
        env.putAll(fabric().processEnvironment(!role.equals("worker")));
        if (role.equals("server")) {
            env.put("RDMA_KV_ADDRESS", fabric().nextAddress().getAddress().getHostAddress());
        } else if (role.equals("worker")) {
            env.put("RDMA_KV_ADDRESS", fabric().clientAddress().getHostAddress());
        }
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Process process = Processes.startJava(lines, KvJobPeer.class, List.of(args), env);
        processes.add(process);
        return new Node(process, lines, new ArrayList<>());
    }

    @Test
    void aJobOfTwoServersAndTwoWorkersInSeparateProcessesAgreesWithTheModelAndFinishes() throws Exception {
        InetSocketAddress at = fabric().nextAddress();
        Node scheduler = start("scheduler", at, 2, 2);
        scheduler.await("LISTENING");
        List<Node> nodes = new ArrayList<>();
        for (int s = 0; s < 2; s++) {
            nodes.add(start("server", at, 2, 2));
        }
        for (int w = 0; w < 2; w++) {
            nodes.add(start("worker", at, 2, 2, "3"));
        }
        scheduler.await("READY");
        for (Node node : nodes) {
            node.await("FINISHED");
            assertEquals(0, node.exit(), node.seen().toString());
        }
        assertTrue(nodes.get(2).seen().contains("ROUND 2 OK"), nodes.get(2).seen().toString());
        scheduler.await("FINISHED");
        assertEquals(0, scheduler.exit());
    }

    @Test
    void killingTheSchedulerFailsTheNodesWaitingToJoin() throws Exception {
        InetSocketAddress at = fabric().nextAddress();
        Node scheduler = start("scheduler", at, 2, 1);
        scheduler.await("LISTENING");
        Node server = start("server", at, 2, 1);
        Node worker = start("worker", at, 2, 1, "1");
        scheduler.await("REGISTERED 2"); // both wait for the second worker
        scheduler.process().destroyForcibly();
        for (Node node : List.of(server, worker)) {
            String failed = node.await("FAILED");
            assertTrue(failed.contains("KvException") && failed.contains("scheduler") && failed.contains("gone"), failed);
            assertEquals(1, node.exit());
        }
    }

    @Test
    void killingTheSchedulerFailsAServerWaitingInABarrier() throws Exception {
        InetSocketAddress at = fabric().nextAddress();
        Node scheduler = start("scheduler", at, 1, 1);
        scheduler.await("LISTENING");
        Node server = start("server", at, 1, 1);
        Node worker = start("worker", at, 1, 1, "until-failure");
        worker.await("PUSHED"); // the server waits in the ALL barrier meanwhile (it finishes at once)
        scheduler.process().destroyForcibly();
        String failed = server.await("FAILED");
        assertTrue(failed.contains("KvException") && failed.contains("scheduler") && failed.contains("gone"), failed);
        assertEquals(1, server.exit());
        // The server closed its store on the way out: the worker's next push fails, and it exits.
        String workerFailed = worker.await("FAILED");
        assertTrue(workerFailed.contains("KvException"), workerFailed);
        assertEquals(1, worker.exit());
    }

    @Test
    void killingAServerFailsTheWorkerPushingToIt() throws Exception {
        InetSocketAddress at = fabric().nextAddress();
        Node scheduler = start("scheduler", at, 1, 1);
        scheduler.await("LISTENING");
        Node server = start("server", at, 1, 1);
        Node worker = start("worker", at, 1, 1, "until-failure");
        worker.await("PUSHED");
        server.process().destroyForcibly();
        String failed = worker.await("FAILED");
        assertTrue(failed.contains("KvException"), failed);
        assertEquals(1, worker.exit());
        // Every node left (one killed, one failed): the scheduler's job is over.
        scheduler.await("FINISHED");
        assertEquals(0, scheduler.exit());
    }
}
