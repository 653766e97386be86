package org.jrdma.rxe.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A context holds thousands of channels: they open (connects bounded by what the peer lets wait),
 * each carries a message and its answer, they close, and the process has every descriptor back and
 * its resident memory within {@link ResourceBaseline#MEMORY_BOUND} of before. Both sides are JVMs of
 * their own ({@link EchoPeer}, {@link ManyChannelsClient}): thousands of channels need thousands of
 * descriptors on each side, and the measuring side's heap is fixed and touched from the start, so
 * that its resident memory moves only with what lies outside the heap.
 */
public abstract class ManyChannelsContract {
    private static final long WAIT_S = 600;
    private final List<Process> processes = new ArrayList<>();

    protected abstract Fabric fabric();

    /** How many channels the context holds at once. */
    protected abstract int channels();

    /** The channels' queue depth on both sides (RDMA_QUEUE_DEPTH); 0: the default. */
    protected int queueDepth() {
        return 0;
    }

    @AfterEach
    void endPeers() throws Exception {
        for (Process process : processes) {
            process.getOutputStream().close(); // the echo peer ends with its input
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    @Test
    void thousandsOfChannelsOpenCarryAMessageEachAndCloseGivingBackEveryDescriptorAndTheirMemory() throws Exception {
        fabric().require();
        InetSocketAddress at = fabric().nextAddress();
        BlockingQueue<String> peerLines = new LinkedBlockingQueue<>();
        processes.add(Processes.startJava(peerLines, EchoPeer.class,
                List.of(at.getAddress().getHostAddress(), String.valueOf(at.getPort())), environment(true)));
        await(peerLines, new ArrayList<>(), "LISTENING");

        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        List<String> seen = new ArrayList<>();
        processes.add(Processes.startJava(lines, ManyChannelsClient.class,
                List.of("-Xms512m", "-Xmx512m", "-XX:+AlwaysPreTouch", "-XX:+UseSerialGC"),
                List.of(at.getAddress().getHostAddress(), String.valueOf(at.getPort()),
                        fabric().clientAddress().getHostAddress(), String.valueOf(channels()),
                        String.valueOf(ResourceBaseline.MEMORY_BOUND)), environment(false)));
        String line = await(lines, seen, "RESULT");
        System.out.println(fabric() + ", " + channels() + " channels: " + line); // the figures, in the test's output
        String[] result = line.split(" ");
        int filesBefore = Integer.parseInt(result[2]);
        int filesAfter = Integer.parseInt(result[3]);
        long residentBefore = Long.parseLong(result[5]);
        long residentAfter = Long.parseLong(result[6]);
        assertEquals(filesBefore, filesAfter, "open files after " + channels() + " channels closed: " + line);
        long grown = residentAfter - residentBefore;
        assertTrue(grown < ResourceBaseline.MEMORY_BOUND, "resident memory grew by " + (grown >> 20) + " MiB over "
                + channels() + " channels opened and closed (" + (residentBefore >> 20) + " -> " + (residentAfter >> 20)
                + " MiB); it printed " + seen);
    }

    /** The fabric's variables for one side, and the queue depth when set. */
    private Map<String, String> environment(boolean server) {
        Map<String, String> env = fabric().processEnvironment(server);
        if (queueDepth() > 0) {
            env.put("RDMA_QUEUE_DEPTH", String.valueOf(queueDepth()));
        }
        return env;
    }

    private static String await(BlockingQueue<String> lines, List<String> seen, String prefix) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (System.nanoTime() < deadline) {
            String line = lines.poll(1, TimeUnit.SECONDS);
            if (line != null) {
                seen.add(line);
                if (line.startsWith("FAILED")) {
                    throw new AssertionError("failed: " + line + "; it printed " + seen);
                }
                if (line.startsWith(prefix)) {
                    return line;
                }
            }
        }
        throw new AssertionError("no line " + prefix + "... within " + WAIT_S + " s; it printed " + seen);
    }
}
