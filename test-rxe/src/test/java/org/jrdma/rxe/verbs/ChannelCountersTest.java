package org.jrdma.rxe.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.TabularData;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.jrdma.Access;
import org.jrdma.ChannelCounters;
import org.jrdma.RdmaChannel;
import org.jrdma.RegisteredBuffer;
import org.jrdma.RemoteBuffer;
import org.jrdma.rxe.contract.Endpoints;
import org.jrdma.rxe.contract.RxeEnvironment;
import org.junit.jupiter.api.Test;

/**
 * A known workload gives exact counters on both ends of a channel, they outlive its close, and JFR records the
 * channel; failures are counted by status, operations above the JFR threshold are recorded, and the device's own
 * counters are readable.
 */
class ChannelCountersTest {
    private static final int MIB = 1 << 20;

    @Test
    void aKnownWorkloadGivesExactCountersOnBothSides() throws Exception {
        Path jfr = Files.createTempFile("jrdma", ".jfr");
        Recording recording = new Recording();
        recording.enable("org.jrdma.ChannelOpened");
        recording.enable("org.jrdma.ChannelClosed");
        recording.start();
        try (Endpoints e = new Endpoints()) {
            InetSocketAddress address = Endpoints.nextAddress();
            CountDownLatch received = new CountDownLatch(12);
            AtomicReference<RdmaChannel> serverSide = new AtomicReference<>();
            e.listen(address, (ch, m) -> {
                serverSide.set(ch);
                received.countDown();
            });
            RdmaChannel channel = e.connect(address, (ch, m) -> { });
            RegisteredBuffer out = e.client.allocate(2 * MIB);
            RegisteredBuffer target = e.server.allocate(4096, Access.REMOTE_READ, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC);
            RemoteBuffer remote = target.remote();
            List<CompletableFuture<?>> ops = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                ops.add(channel.send(out, 0, 100));
            }
            ops.add(channel.send(out, 0, MIB)); // by rendezvous
            ops.add(channel.send(out, MIB, MIB));
            for (int i = 0; i < 3; i++) {
                ops.add(channel.write(out, 0, remote, 0, 64));
            }
            for (int i = 0; i < 2; i++) {
                ops.add(channel.read(remote, 64, out, 0, 64));
            }
            ops.add(channel.fetchAndAdd(remote, 128, 1));
            CompletableFuture.allOf(ops.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            assertTrue(received.await(60, TimeUnit.SECONDS));

            ChannelCounters sent = channel.counters();
            assertEquals(12, sent.messagesSent());
            assertEquals(10 * 100 + 2L * MIB, sent.bytesSent());
            assertEquals(2, sent.rendezvousSent());
            assertEquals(3, sent.writes());
            assertEquals(2, sent.reads());
            assertEquals(1, sent.atomics());
            assertEquals(0, sent.failedOperations());
            assertEquals(0, sent.messagesReceived());
            ChannelCounters got = serverSide.get().counters();
            assertEquals(12, got.messagesReceived());
            assertEquals(10 * 100 + 2L * MIB, got.bytesReceived());
            assertEquals(2, got.rendezvousReceived());
            assertEquals(0, got.messagesSent());

            channel.close();
            channel.closeFuture().get(10, TimeUnit.SECONDS);
            Map<String, Long> before = sent.asMap();
            Map<String, Long> after = channel.counters().asMap();
            before.remove("creditMessages"); // the graceful close may return credits
            after.remove("creditMessages");
            assertEquals(before, after, "the counters outlive the channel");
            out.close();
            target.close();
        }
        recording.stop();
        recording.dump(jfr);
        recording.close();
        // The JFR events: both ends opened; the client's close carries its counters.
        List<RecordedEvent> events = RecordingFile.readAllEvents(jfr);
        Files.delete(jfr);
        assertEquals(2, events.stream().filter(ev -> ev.getEventType().getName().equals("org.jrdma.ChannelOpened")).count(),
                events.toString());
        assertTrue(events.stream().anyMatch(ev -> ev.getEventType().getName().equals("org.jrdma.ChannelClosed")
                && ev.getLong("messagesSent") == 12 && ev.getLong("bytesSent") == 10 * 100 + 2L * MIB), events.toString());
    }

    @Test
    void theContextSumsItsChannelsOpenAndClosedAndShowsThemInJmx() throws Exception {
        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        Set<ObjectName> before = jmx.queryNames(new ObjectName("org.jrdma:type=Context,*"), null);
        ObjectName clientBean;
        try (Endpoints e = new Endpoints()) {
            Set<ObjectName> names = new HashSet<>(
                    jmx.queryNames(new ObjectName("org.jrdma:type=Context,*"), null));
            names.removeAll(before);
            assertEquals(2, names.size(), "one MXBean per context: " + names);
            clientBean = names.stream().filter(n -> n.getKeyProperty("device").contains(RxeEnvironment.clientDevice()))
                    .findFirst().orElseThrow();
            InetSocketAddress address = Endpoints.nextAddress();
            CountDownLatch received = new CountDownLatch(15);
            e.listen(address, (ch, m) -> received.countDown());
            RegisteredBuffer out = e.client.allocate(4096);
            RdmaChannel first = e.connect(address, (ch, m) -> { });
            for (int i = 0; i < 10; i++) {
                first.send(out, 0, 100).get(30, TimeUnit.SECONDS);
            }
            first.close(); // its counts stay in the context's sums
            first.closeFuture().get(10, TimeUnit.SECONDS);
            RdmaChannel second = e.connect(address, (ch, m) -> { });
            for (int i = 0; i < 5; i++) {
                second.send(out, 0, 200).get(30, TimeUnit.SECONDS);
            }
            assertTrue(received.await(30, TimeUnit.SECONDS));
            ChannelCounters sums = e.client.counters();
            assertEquals(15, sums.messagesSent());
            assertEquals(10 * 100 + 5 * 200, sums.bytesSent());
            assertEquals(15L, jmx.getAttribute(clientBean, "MessagesSent"));
            assertEquals(1, jmx.getAttribute(clientBean, "OpenChannels"));
            out.close();
        }
        assertTrue(!jmx.isRegistered(clientBean), "the MXBean goes with its context");
    }

    @Test
    void failuresAreCountedByStatusSlowOperationsRecordedAndTheDeviceCountsPackets() throws Exception {
        Path jfr = Files.createTempFile("jrdma", ".jfr");
        Recording recording = new Recording();
        recording.enable("org.jrdma.OperationFailed");
        recording.enable("org.jrdma.SlowOperation").withThreshold(Duration.ZERO); // every operation is "slow"
        recording.start();
        try (Endpoints e = new Endpoints()) {
            InetSocketAddress address = Endpoints.nextAddress();
            CountDownLatch received = new CountDownLatch(20);
            e.listen(address, (ch, m) -> received.countDown());
            RdmaChannel channel = e.connect(address, (ch, m) -> { });
            RegisteredBuffer out = e.client.allocate(4096);
            long packetsBefore = e.client.deviceCounters().getOrDefault("sent_pkts", -1L);
            assertTrue(packetsBefore >= 0, "rxe counts its packets (hw_counters/sent_pkts): " + e.client.deviceCounters());
            for (int i = 0; i < 20; i++) {
                channel.send(out, 0, 100).get(30, TimeUnit.SECONDS);
            }
            assertTrue(received.await(30, TimeUnit.SECONDS));
            long packetsAfter = e.client.deviceCounters().get("sent_pkts");
            assertTrue(packetsAfter >= packetsBefore + 20, packetsBefore + " -> " + packetsAfter + " packets for 20 messages");
            assertEquals(Map.of(), e.client.operationErrors());

            // A write with a key the server never handed out: REM_ACCESS_ERR, counted once by status.
            RegisteredBuffer target = e.server.allocate(4096, Access.REMOTE_WRITE);
            RemoteBuffer wrongKey = new RemoteBuffer(target.remote().address(), 4096, target.remote().rkey() + 1);
            ExecutionException refused = org.junit.jupiter.api.Assertions.assertThrows(
                    ExecutionException.class, () -> channel.write(out, 0, wrongKey, 0, 64).get(30, TimeUnit.SECONDS));
            assertTrue(refused.getCause().getMessage().contains("REM_ACCESS_ERR"), refused.getCause().getMessage());
            assertEquals(Map.of("REM_ACCESS_ERR", 1L), e.client.operationErrors());
            assertEquals(1, e.client.counters().failedOperations());

            MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
            ObjectName bean = jmx.queryNames(new ObjectName("org.jrdma:type=Context,*"), null)
                    .stream().filter(n -> n.getKeyProperty("device").contains(RxeEnvironment.clientDevice())).findFirst().orElseThrow();
            TabularData errors = (TabularData) jmx.getAttribute(bean, "ErrorsByStatus");
            assertEquals(1L, errors.get(new Object[] {"REM_ACCESS_ERR"}).get("value"));
            assertTrue(((TabularData) jmx.getAttribute(bean, "DeviceCounters")).size() > 0);
            assertTrue((Integer) jmx.getAttribute(bean, "CompletionQueueCapacity") > 0);
            assertTrue((Integer) jmx.getAttribute(bean, "CompletionQueueResizes") >= 0);
            out.close();
            target.close();
        }
        recording.stop();
        recording.dump(jfr);
        recording.close();
        List<RecordedEvent> events = RecordingFile.readAllEvents(jfr);
        Files.delete(jfr);
        assertEquals(1, events.stream().filter(ev -> ev.getEventType().getName().equals("org.jrdma.OperationFailed")
                && ev.getString("operation").equals("RDMA_WRITE") && ev.getString("status").equals("REM_ACCESS_ERR")).count(),
                events.toString());
        assertEquals(20, events.stream().filter(ev -> ev.getEventType().getName().equals("org.jrdma.SlowOperation")
                && ev.getString("operation").equals("SEND") && ev.getLong("bytes") == 100
                && ev.getString("outcome").equals("completed")).count(), "one per send at threshold 0");
    }
}
