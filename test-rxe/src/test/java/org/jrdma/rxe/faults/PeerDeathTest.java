package org.jrdma.rxe.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RegisteredBuffer;
import org.jrdma.rxe.contract.ContextLifecycleContract;
import org.jrdma.rxe.contract.Endpoints;
import org.jrdma.rxe.contract.Patterns;
import org.jrdma.rxe.contract.Processes;
import org.jrdma.rxe.contract.ResourceBaseline;
import org.jrdma.rxe.contract.RxeEnvironment;
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
        return Processes.startJava(lines, RendezvousPeer.class, List.of(args));
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
        return ContextLifecycleContract.resourceCounts();
    }

    private static int mrCount(String device) throws Exception {
        Integer count = ContextLifecycleContract.resourceCounts().get(device + ".mr");
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
            Processes.awaitLine(lines, "LISTENING");
            String local = RxeEnvironment.topology().equals("two") ? RxeEnvironment.ADDRESS_1 : RxeEnvironment.ADDRESS_0;
            RdmaChannel channel = client.connect(new InetSocketAddress(RxeEnvironment.ADDRESS_0, port),
                    InetAddress.getByName(local), (ch, m) -> { }).get(60, TimeUnit.SECONDS);
            RegisteredBuffer out = client.allocate(SIZE);
            Patterns.fill(out.buffer(), 0, SIZE, 1);
            int before = mrCount(RxeEnvironment.clientDevice());
            List<CompletableFuture<Void>> sends = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                sends.add(channel.send(out, 0, SIZE));
            }
            Processes.awaitLine(lines, "RECEIVED 1");
            kill(peer);
            // Every send completes (the first may have made it), none hangs; the rest fail.
            int failed = 0;
            for (CompletableFuture<Void> send : sends) {
                try {
                    send.get(120, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
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
        assertEquals(baseline, ContextLifecycleContract.resourceCounts(), "rdma resource show before and after");
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
            Processes.awaitLine(lines, "SENDING");
            assertTrue(first.await(120, TimeUnit.SECONDS), "no message arrived");
            kill(peer);
            Throwable cause = accepted.get().closeFuture().get(120, TimeUnit.SECONDS);
            assertNotNull(cause, "the channel closed because of the peer, not locally");
        } finally {
            if (peer != null) {
                peer.destroyForcibly();
            }
        }
        assertEquals(baseline, ContextLifecycleContract.resourceCounts(), "rdma resource show before and after");
    }
}
