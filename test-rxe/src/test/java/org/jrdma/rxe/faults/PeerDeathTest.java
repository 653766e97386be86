package org.jrdma.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RegisteredBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A peer process killed in the middle of rendezvous transfers: the survivor's operations all fail
 * (none hangs), its channel closes with a cause, the sources it exposed are deregistered at once,
 * and `rdma resource show` is back to where it was before either process started.
 */
@ExtendWith(ResourceBaseline.class) // the fault leaves no resource behind
class PeerDeathTest {
    private static final int MIB = 1 << 20;
    // 16 messages of 4 MiB: 8 are in flight when the peer dies.
    private static final int SIZE = 4 * MIB;
    private static int nextPort = 19700;

    /** The peer in its own JVM; its output lines arrive in {@code lines}. */
    static Process startPeer(BlockingQueue<String> lines, String... args) throws Exception {
        return startPeer(lines, RendezvousPeer.class, List.of(args));
    }

    /** A JVM running {@code main}; its output lines arrive in {@code lines}. */
    static Process startPeer(BlockingQueue<String> lines, Class<?> main, List<String> args) throws Exception {
        Process process = new ProcessBuilder(Processes.java(main, args)).redirectErrorStream(true).start();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (java.io.IOException ignored) {
                // the process died
            }
        });
        reader.setDaemon(true);
        reader.start();
        return process;
    }

    static void awaitLine(BlockingQueue<String> lines, String expected) throws InterruptedException {
        List<String> seen = new ArrayList<>();
        // A generous bound: under TCG the child JVM starts slowly and 32 MiB of READs take seconds.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
        while (System.nanoTime() < deadline) {
            String line = lines.poll(1, TimeUnit.SECONDS);
            if (line == null) {
                continue;
            }
            seen.add(line);
            if (line.equals(expected)) {
                return;
            }
        }
        throw new AssertionError("the peer did not print " + expected + "; it printed " + seen);
    }

    private static void kill(Process process) throws InterruptedException {
        process.destroyForcibly();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the peer did not die");
    }

    /**
     * The baseline of `rdma resource show`, taken once this JVM has used rdma_cm on both devices:
     * librdmacm opens every device (and a protection domain) on first use and keeps them for the
     * process's lifetime — not a leak of the test's, but a difference when this class runs first.
     */
    private static Map<String, Integer> baseline() throws Exception {
        try (Endpoints e = new Endpoints()) {
            InetSocketAddress address = Endpoints.nextAddress();
            e.listen(address, (ch, m) -> { });
            e.connect(address, (ch, m) -> { }).close();
        }
        return ContextLifecycleTest.resourceCounts();
    }

    private static int mrCount(String device) throws Exception {
        Integer count = ContextLifecycleTest.resourceCounts().get(device + ".mr");
        assertNotNull(count, "no mr count for " + device);
        return count;
    }

    @Test
    void aReceiverKilledMidTransferFailsEverySendAndTheSourcesAreDeregistered() throws Exception {
        RxeEnvironment.requireDevices();
        Map<String, Integer> baseline = baseline();
        int port = nextPort++;
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Process peer = startPeer(lines, "receive", RxeEnvironment.serverDevice(), RxeEnvironment.ADDRESS_0, "" + port);
        try (RdmaContext client = Rdma.open(RdmaConfig.builder().device(RxeEnvironment.clientDevice()).build())) {
            awaitLine(lines, "LISTENING");
            String local = RxeEnvironment.topology().equals("two") ? RxeEnvironment.ADDRESS_1 : RxeEnvironment.ADDRESS_0;
            RdmaChannel channel = client.connect(new InetSocketAddress(RxeEnvironment.ADDRESS_0, port),
                    java.net.InetAddress.getByName(local), (ch, m) -> { }).get(60, TimeUnit.SECONDS);
            RegisteredBuffer out = client.allocate(SIZE);
            Patterns.fill(out.buffer(), 0, SIZE, 1);
            int before = mrCount(RxeEnvironment.clientDevice());
            List<CompletableFuture<Void>> sends = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                sends.add(channel.send(out, 0, SIZE));
            }
            awaitLine(lines, "RECEIVED 1");
            kill(peer);
            // Every send completes (the first may have made it), none hangs; the rest fail.
            int failed = 0;
            for (CompletableFuture<Void> send : sends) {
                try {
                    send.get(120, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    failed++;
                }
            }
            assertTrue(failed >= 8, failed + " sends failed");
            Throwable cause = channel.closeFuture().get(60, TimeUnit.SECONDS);
            assertNotNull(cause, "the channel closed because of the peer, not locally");
            assertEquals(before, mrCount(RxeEnvironment.clientDevice()),
                    "every exposed source is deregistered: the dead peer's keys read nothing any more");
            out.close();
        } finally {
            peer.destroyForcibly();
        }
        assertEquals(baseline, ContextLifecycleTest.resourceCounts(), "rdma resource show before and after");
    }

    @Test
    void aSenderKilledMidTransferClosesTheReceiversChannelAndFreesItsBuffers() throws Exception {
        RxeEnvironment.requireDevices();
        Map<String, Integer> baseline = baseline();
        int port = nextPort++;
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Process peer = null;
        try (RdmaContext server = Rdma.open(RdmaConfig.builder().device(RxeEnvironment.serverDevice()).build())) {
            CountDownLatch first = new CountDownLatch(1);
            CompletableFuture<RdmaChannel> accepted = new CompletableFuture<>();
            server.listen(new InetSocketAddress(RxeEnvironment.ADDRESS_0, port), (channel, message) -> {
                accepted.complete(channel);
                first.countDown();
            });
            String local = RxeEnvironment.topology().equals("two") ? RxeEnvironment.ADDRESS_1 : RxeEnvironment.ADDRESS_0;
            peer = startPeer(lines, "send", RxeEnvironment.clientDevice(), local, RxeEnvironment.ADDRESS_0, "" + port, "16",
                    "" + SIZE);
            awaitLine(lines, "SENDING");
            assertTrue(first.await(120, TimeUnit.SECONDS), "no message arrived");
            kill(peer);
            Throwable cause = accepted.get().closeFuture().get(120, TimeUnit.SECONDS);
            assertNotNull(cause, "the channel closed because of the peer, not locally");
        } finally {
            if (peer != null) {
                peer.destroyForcibly();
            }
        }
        assertEquals(baseline, ContextLifecycleTest.resourceCounts(), "rdma resource show before and after");
    }
}
