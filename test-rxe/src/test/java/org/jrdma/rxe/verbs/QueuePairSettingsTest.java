package org.jrdma.rxe.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jrdma.ChannelHandler;
import org.jrdma.ConnectionException;
import org.jrdma.ConnectionRejectedException;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaConfigBuilder;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaMessage;
import org.jrdma.RegisteredBuffer;
import org.junit.jupiter.api.Test;

/**
 * Every validated option reaches the queue pair and the wire (issue: six options were validated and
 * dropped). Checked from two sides: the queue pairs' attributes as the device reports them
 * (ibv_query_qp) on both ends, and packets captured on the veth pair (IP TOS, RoCE packet sizes).
 * Needs the two-device topology of the plain VM suite (traffic crosses veth0/veth1).
 * The queue pair's attributes are read from the channel's description (its toString), as a user diagnosing one would.
 */
class QueuePairSettingsTest {
    private static final String SERVER_IP = "10.77.0.1";
    private static final String CLIENT_IP = "10.77.0.2";
    private static int nextPort = 19700;

    @Test
    void trafficClassMtuPkeyAndTimeoutsReachBothQueuePairsAndTheWire() throws Exception {
        RdmaConfigBuilder settings = RdmaConfig.builder().trafficClass(96).mtu(512).timeout(15).retryCount(5).pkeyIndex(0);
        try (RdmaContext server = Rdma.open(settings.device("rxe0").build());
             RdmaContext client = Rdma.open(settings.device("rxe1").build());
             Capture capture = Capture.start("veth0")) {
            Pair pair = connect(server, client);
            for (RdmaChannel channel : List.of(pair.server, pair.client)) {
                Map<String, String> qp = attributes(channel);
                assertEquals("512", qp.get("path_mtu"), qp.toString());
                assertEquals("96", qp.get("traffic_class"), qp.toString());
                assertEquals("0", qp.get("sl"), qp.toString());
                assertEquals("0", qp.get("pkey_index"), qp.toString());
                assertEquals("15", qp.get("timeout"), qp.toString());
                assertEquals("5", qp.get("retry_cnt"), qp.toString());
            }
            // The source GID is the one rdma_cm chose for the address, which is the selection's.
            assertEquals(String.valueOf(client.gidIndex()), attributes(pair.client).get("sgid_index"));
            pair.exchange(client, 3000, 20);
            List<String> packets = capture.stop(40); // 20 messages of 6 packets, their ACKs
            List<String> roce = packets.stream().filter(p -> p.contains(".4791:")).collect(Collectors.toList());
            assertTrue(roce.size() >= 20, "RoCE v2 packets captured on veth0: " + packets + "; tcpdump printed " + capture.lines);
            for (String packet : roce) {
                assertEquals("0x60", field(packet, "tos (0x[0-9a-f]+)"), "IP TOS = traffic class 96: " + packet);
                int udpPayload = Integer.parseInt(field(packet, "UDP, length (\\d+)"));
                // BTH 12 + (RETH 16 or AETH 4) + payload <= path MTU + ICRC 4
                assertTrue(udpPayload <= 512 + 32, "a RoCE packet above the 512-byte path MTU: " + packet);
            }
            assertTrue(roce.stream().anyMatch(p -> Integer.parseInt(field(p, "UDP, length (\\d+)")) >= 512),
                    "3000-byte messages travel as full 512-byte packets: " + roce);
        }
    }

    @Test
    void aServiceLevelTheDeviceDoesNotKeepIsRefusedWithTheVariableNotDroppedSilently() throws Exception {
        // rxe has no service level (it reads back 0): a configured RDMA_SL must not vanish quietly.
        try (RdmaContext server = Rdma.open(RdmaConfig.builder().device("rxe0").serviceLevel(3).build());
             RdmaContext client = Rdma.open(RdmaConfig.builder().device("rxe1").serviceLevel(3).build())) {
            InetSocketAddress address = new InetSocketAddress(SERVER_IP, nextPort++);
            CompletableFuture<Throwable> serverSide = new CompletableFuture<>();
            server.listen(address, new ChannelHandler() {
                @Override
                public void onMessage(RdmaChannel channel, RdmaMessage message) {
                }

                @Override
                public void onRejected(ConnectionRejectedException cause) {
                    serverSide.complete(cause);
                }
            });
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> client.connect(address, InetAddress.getByName(CLIENT_IP), (ch, m) -> { }).get(30, TimeUnit.SECONDS));
            assertInstanceOf(ConnectionRejectedException.class, e.getCause());
            assertTrue(e.getCause().getMessage().contains("RDMA_SL=3") && e.getCause().getMessage().contains("reads back 0"),
                    e.getCause().getMessage());
            assertTrue(serverSide.get(10, TimeUnit.SECONDS).getMessage().contains("RDMA_SL=3"));
        }
        // Only the client asks for it: the server accepts, the client refuses its own queue pair.
        try (RdmaContext server = Rdma.open(RdmaConfig.builder().device("rxe0").build());
             RdmaContext client = Rdma.open(RdmaConfig.builder().device("rxe1").serviceLevel(3).build())) {
            InetSocketAddress address = new InetSocketAddress(SERVER_IP, nextPort++);
            server.listen(address, (ch, m) -> { });
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> client.connect(address, InetAddress.getByName(CLIENT_IP), (ch, m) -> { }).get(30, TimeUnit.SECONDS));
            assertInstanceOf(ConnectionException.class, e.getCause());
            assertTrue(e.getCause().getMessage().contains("RDMA_SL=3"), e.getCause().getMessage());
        }
    }

    @Test
    void bothEndsUseTheSmallerConfiguredMtu() throws Exception {
        try (RdmaContext server = Rdma.open(RdmaConfig.builder().device("rxe0").mtu(1024).build());
             RdmaContext client = Rdma.open(RdmaConfig.builder().device("rxe1").mtu(256).build())) {
            Pair pair = connect(server, client);
            assertEquals("256", attributes(pair.server).get("path_mtu"));
            assertEquals("256", attributes(pair.client).get("path_mtu"));
            pair.exchange(client, 2000, 5); // multi-packet messages pass: both ends agree
        }
    }

    @Test
    void anExplicitGidIndexIsTheQueuePairsSourceGid() throws Exception {
        int gid;
        try (RdmaContext probe = Rdma.open(RdmaConfig.builder().device("rxe1").build())) {
            gid = probe.gidIndex();
        }
        try (RdmaContext server = Rdma.open(RdmaConfig.builder().device("rxe0").build());
             RdmaContext client = Rdma.open(RdmaConfig.builder().device("rxe1").gidIndex(gid).build())) {
            Pair pair = connect(server, client);
            assertEquals(String.valueOf(gid), attributes(pair.client).get("sgid_index"));
            pair.exchange(client, 100, 3);
        }
    }

    // ---- helpers ------------------------------------------------------------------------------------

    /** Both ends of one channel, and what the server received. */
    static final class Pair {
        final RdmaChannel server;
        final RdmaChannel client;
        final List<byte[]> received;
        final CountDownLatch[] latch;

        Pair(RdmaChannel server, RdmaChannel client, List<byte[]> received, CountDownLatch[] latch) {
            this.server = server;
            this.client = client;
            this.received = received;
            this.latch = latch;
        }

        /** Sends count messages of size bytes client -> server and checks their content. */
        void exchange(RdmaContext clientContext, int size, int count) throws Exception {
            latch[0] = new CountDownLatch(count);
            try (RegisteredBuffer buffer = clientContext.allocate(size)) {
                for (int i = 0; i < count; i++) {
                    for (int b = 0; b < size; b++) {
                        buffer.buffer().put(b, (byte) (i * 7 + b));
                    }
                    client.send(buffer, 0, size).get(10, TimeUnit.SECONDS);
                }
                assertTrue(latch[0].await(10, TimeUnit.SECONDS), "messages did not arrive");
            }
            for (int i = 0; i < count; i++) {
                byte[] bytes = received.get(received.size() - count + i);
                assertEquals(size, bytes.length);
                for (int b = 0; b < size; b++) {
                    assertEquals((byte) (i * 7 + b), bytes[b], "message " + i + " byte " + b);
                }
            }
        }
    }

    private static Pair connect(RdmaContext server, RdmaContext client) throws Exception {
        InetSocketAddress address = new InetSocketAddress(SERVER_IP, nextPort++);
        List<byte[]> received = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch[] latch = {new CountDownLatch(0)};
        CompletableFuture<RdmaChannel> accepted = new CompletableFuture<>();
        server.listen(address, new ChannelHandler() {
            @Override
            public void onOpen(RdmaChannel channel) {
                accepted.complete(channel);
            }

            @Override
            public void onMessage(RdmaChannel channel, RdmaMessage message) {
                byte[] bytes = new byte[message.length()];
                message.payload().get(bytes);
                received.add(bytes);
                latch[0].countDown();
            }
        });
        RdmaChannel channel = client.connect(address, InetAddress.getByName(CLIENT_IP), (ch, m) -> { })
                .get(30, TimeUnit.SECONDS);
        return new Pair(accepted.get(30, TimeUnit.SECONDS), channel, received, latch);
    }

    private static Map<String, String> attributes(RdmaChannel channel) {
        String text = channel.toString(); // an open channel's description ends with its queue pair's attributes
        return Stream.of(text.split("[ ;,()]")).filter(s -> s.contains("="))
                .collect(Collectors.toMap(s -> s.substring(0, s.indexOf('=')), s -> s.substring(s.indexOf('=') + 1)));
    }

    private static String field(String line, String regex) {
        Matcher m = Pattern.compile(regex).matcher(line);
        assertTrue(m.find(), "no " + regex + " in " + line);
        return m.group(1);
    }

    /** tcpdump on an interface of the VM, RoCE v2 only (UDP 4791), one line per packet. */
    static final class Capture implements AutoCloseable {
        private final Process process;
        final List<String> lines = Collections.synchronizedList(new ArrayList<>());
        private final Thread reader;

        private Capture(Process process, CountDownLatch listening) {
            this.process = process;
            this.reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line; (line = in.readLine()) != null;) {
                        if (line.contains("listening on")) {
                            listening.countDown();
                        }
                        synchronized (lines) {
                            lines.add(line);
                            lines.notifyAll();
                        }
                    }
                } catch (IOException ignored) {
                    // the process ended
                }
            });
            reader.start();
        }

        static Capture start(String device) throws Exception {
            Process process = new ProcessBuilder("tcpdump", "-i", device, "-nn", "-v", "-l", "--immediate-mode",
                    "udp", "port", "4791").redirectErrorStream(true).start();
            CountDownLatch listening = new CountDownLatch(1);
            Capture capture = new Capture(process, listening);
            assertTrue(listening.await(30, TimeUnit.SECONDS), "tcpdump did not start: " + capture.lines);
            return capture;
        }

        /**
         * Stops the capture once it holds at least {@code packets} RoCE packets (or after 10 s); each
         * packet as one line (tcpdump -v prints the IP header line, then the UDP line).
         */
        List<String> stop(int packets) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            synchronized (lines) {
                while (lines.stream().filter(l -> l.contains(".4791:")).count() < packets) {
                    long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                    if (left <= 0) {
                        break;
                    }
                    lines.wait(left);
                }
            }
            process.destroy();
            process.waitFor(10, TimeUnit.SECONDS);
            reader.join(10_000);
            List<String> joined = new ArrayList<>();
            synchronized (lines) {
                for (int i = 0; i < lines.size(); i++) {
                    String line = lines.get(i);
                    if (line.contains(" IP (") && i + 1 < lines.size()) { // "<time> IP (tos 0x60, ...", then the UDP line
                        joined.add(line + " " + lines.get(i + 1).trim());
                    }
                }
            }
            return joined;
        }

        @Override
        public void close() {
            process.destroyForcibly();
        }
    }
}
