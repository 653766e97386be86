package org.jrdma.rxe.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jrdma.OperationTimeoutException;
import org.jrdma.PeerSilentException;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RegisteredBuffer;
import org.jrdma.rxe.contract.Endpoints;
import org.jrdma.rxe.contract.Processes;
import org.jrdma.rxe.contract.ResourceBaseline;
import org.jrdma.rxe.contract.RxeEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Keepalive: an idle channel between live peers stays open for three bounds, and a peer
 * process that is stopped (SIGSTOP: its device still acknowledges our packets, only its messages
 * stop) is detected within the bound even though nothing is outstanding. Operation timeout: a peer
 * that stops returning credits fails the waiting operations within the bound, each once. Deadlines: an
 * operation issued through {@link RdmaChannel#withDeadline} and not done within it closes the channel
 * naming it; operations done in time leave no trace.
 */
@ExtendWith(ResourceBaseline.class) // the fault leaves no resource behind
class LivenessTest {

    @Test
    void anIdleChannelBetweenLivePeersStaysOpenForThreeBounds() throws Exception {
        // 3 s: under emulation a loop thread can stall for a second (JIT, GC); 1 s is the minimum.
        try (Endpoints e = new Endpoints(RdmaConfig.builder().keepaliveMillis(3000))) {
            InetSocketAddress address = Endpoints.nextAddress();
            BlockingQueue<Integer> received = new LinkedBlockingQueue<>();
            e.listen(address, (ch, m) -> received.add(m.length()));
            RdmaChannel channel = e.connect(address, (ch, m) -> { });
            // Three bounds of silence on the application's side: keepalives keep it open.
            assertThrows(TimeoutException.class, () -> channel.closeFuture().get(9, TimeUnit.SECONDS),
                    () -> "closed: " + channel.closeFuture().getNow(null));
            RegisteredBuffer out = e.client.allocate(64);
            channel.send(out, 0, 64).get(10, TimeUnit.SECONDS);
            assertEquals(64, received.poll(10, TimeUnit.SECONDS));
            assertTrue(channel.isOpen());
            out.close();
        }
    }

    @Test
    void aStoppedPeerProcessClosesTheChannelWithPeerSilentWithinTheBound() throws Exception {
        RxeEnvironment.requireDevices();
        int port = 19800;
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Process peer = PeerDeathTest.startPeer(lines, "receive", RxeEnvironment.serverDevice(), RxeEnvironment.ADDRESS_0,
                "" + port);
        // 10 s: the live peer is a second JVM under emulation on a shared host, whose loop was seen to
        // stall past a 3 s bound (declared silent before it was stopped). Nothing here waits on time
        // while the peer is alive: the bound only has to be longer than any stall of a live peer.
        int bound = 10_000;
        try (RdmaContext client = Rdma.open(RdmaConfig.builder().device(RxeEnvironment.clientDevice())
                .keepaliveMillis(bound).build())) {
            Processes.awaitLine(lines, "LISTENING");
            String local = RxeEnvironment.topology().equals("two") ? RxeEnvironment.ADDRESS_1 : RxeEnvironment.ADDRESS_0;
            RdmaChannel channel = client.connect(new InetSocketAddress(RxeEnvironment.ADDRESS_0, port),
                    InetAddress.getByName(local), (ch, m) -> { }).get(60, TimeUnit.SECONDS);
            assertTrue(channel.isOpen(), () -> "closed before the peer was stopped: " + channel.closeFuture().getNow(null));
            Process stop = new ProcessBuilder("kill", "-STOP", Long.toString(peer.pid())).inheritIO().start();
            assertEquals(0, stop.waitFor());
            long stopped = System.nanoTime();
            Throwable cause = channel.closeFuture().get(120, TimeUnit.SECONDS);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopped);
            PeerSilentException silent = assertInstanceOf(PeerSilentException.class, cause);
            assertTrue(silent.silentMillis() >= bound, silent.getMessage());
            // The bound, one tick, and what the emulated VM adds on top (reported, not a timing assertion).
            System.out.println("LivenessTest: a stopped peer was detected after " + millis + " ms: " + silent.getMessage());
        } finally {
            peer.destroyForcibly();
            peer.waitFor(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void sendsStuckBehindAPeerThatReturnsNoCreditsFailWithTheOperationTimeout() throws Exception {
        try (Endpoints e = new Endpoints(RdmaConfig.builder().queueDepth(16).operationTimeoutMillis(2000))) {
            InetSocketAddress address = Endpoints.nextAddress();
            e.listen(address, (ch, m) -> m.retain()); // holds every message: no credit comes back
            RdmaChannel channel = e.connect(address, (ch, m) -> { });
            RegisteredBuffer out = e.client.allocate(64);
            List<CompletableFuture<Void>> sends = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                sends.add(channel.send(out, 0, 64));
            }
            int timedOut = 0;
            for (CompletableFuture<Void> send : sends) {
                try {
                    send.get(60, TimeUnit.SECONDS);
                } catch (ExecutionException failed) {
                    // "channel ... is closed", caused by the timeout
                    Throwable cause = failed.getCause();
                    assertInstanceOf(OperationTimeoutException.class,
                            cause instanceof OperationTimeoutException ? cause : cause.getCause(), cause.toString());
                    timedOut++;
                }
            }
            assertTrue(timedOut >= 40 - 16, timedOut + " sends timed out");
            assertInstanceOf(OperationTimeoutException.class, channel.closeFuture().get(10, TimeUnit.SECONDS));
            out.close();
        }
    }

    @Test
    void aSendPastItsDeadlineClosesTheChannelNamingItAndFailsEveryPendingOperationOnce() throws Exception {
        // Only the operations' own deadline: the channel-wide bound stays at its default (120 s).
        try (Endpoints e = new Endpoints(RdmaConfig.builder().queueDepth(16))) {
            InetSocketAddress address = Endpoints.nextAddress();
            e.listen(address, (ch, m) -> m.retain()); // holds every message: no credit comes back
            RdmaChannel channel = e.connect(address, (ch, m) -> { });
            RdmaChannel bounded = channel.withDeadline(Duration.ofMillis(500));
            RegisteredBuffer out = e.client.allocate(64);
            List<CompletableFuture<Void>> sends = new ArrayList<>();
            long start = System.nanoTime();
            for (int i = 0; i < 40; i++) {
                sends.add(bounded.send(out, 0, 64));
            }
            Throwable cause = channel.closeFuture().get(30, TimeUnit.SECONDS);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            OperationTimeoutException timeout = assertInstanceOf(OperationTimeoutException.class, cause);
            assertTrue(timeout.getMessage().contains("a SEND to") && timeout.getMessage().contains("deadline of 500 ms"),
                    timeout.getMessage());
            assertTrue(timeout.waitedMillis() >= 500, timeout.getMessage());
            int failed = 0;
            for (CompletableFuture<Void> send : sends) {
                try {
                    send.get(10, TimeUnit.SECONDS); // each is reported: done before the deadline, or failed once
                } catch (ExecutionException e1) {
                    Throwable c = e1.getCause();
                    assertInstanceOf(OperationTimeoutException.class, c instanceof OperationTimeoutException ? c : c.getCause(),
                            c.toString());
                    failed++;
                }
            }
            assertTrue(failed >= 40 - 16, failed + " sends failed");
            assertFalse(bounded.isOpen());
            System.out.println("LivenessTest: closed " + millis + " ms after the sends (deadline 500 ms): "
                    + timeout.getMessage());
            out.close();
        }
    }

    @Test
    void operationsDoneWithinTheirDeadlinesLeaveTheChannelOpen() throws Exception {
        try (Endpoints e = new Endpoints(RdmaConfig.builder().queueDepth(16))) {
            InetSocketAddress address = Endpoints.nextAddress();
            BlockingQueue<Integer> received = new LinkedBlockingQueue<>();
            e.listen(address, (ch, m) -> received.add(m.length()));
            RdmaChannel channel = e.connect(address, (ch, m) -> { });
            RdmaChannel bounded = channel.withDeadline(Duration.ofSeconds(2));
            RegisteredBuffer out = e.client.allocate(64);
            for (int i = 0; i < 200; i++) {
                bounded.send(out, 0, 64).get(30, TimeUnit.SECONDS);
            }
            // Two deadlines later the channel is still open: done operations' deadlines are forgotten.
            assertThrows(TimeoutException.class, () -> channel.closeFuture().get(4, TimeUnit.SECONDS),
                    () -> "closed: " + channel.closeFuture().getNow(null));
            channel.send(out, 0, 64).get(30, TimeUnit.SECONDS);
            for (int i = 0; i < 201; i++) {
                assertEquals(64, received.poll(30, TimeUnit.SECONDS));
            }
            out.close();
        }
    }
}
