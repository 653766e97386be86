package org.jrdma.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jrdma.Access;
import org.jrdma.ConfigurationException;
import org.jrdma.Rdma;
import org.jrdma.RdmaClosedException;
import org.jrdma.PollMode;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RegisteredBuffer;
import org.junit.jupiter.api.Test;

/** Opening and closing contexts: selection on a real device, no leaked verbs objects, safe double close and use after close. */
class ContextLifecycleTest {
    static RdmaConfig rxe0() {
        return RdmaConfig.builder().device("rxe0").build();
    }

    @Test
    void opensTheSelectedDevicePortGidAndMtu() {
        RxeEnvironment.requireDevices();
        try (RdmaContext ctx = Rdma.open(rxe0())) {
            assertEquals("rxe0", ctx.device().name());
            assertEquals(1, ctx.port().number());
            assertEquals(1, ctx.gidIndex(), "the IPv4 RoCE v2 GID, not the link-local one");
            assertEquals(ctx.port().activeMtu(), ctx.mtu());
        }
    }

    @Test
    void defaultSelectionFollowsTheRules() {
        List<String> devices = RxeEnvironment.requireDevices();
        if (devices.size() == 1) {
            try (RdmaContext ctx = Rdma.open(RdmaConfig.defaults())) {
                assertEquals(devices.get(0), ctx.device().name());
            }
        } else {
            ConfigurationException e = assertThrows(ConfigurationException.class, () -> Rdma.open(RdmaConfig.defaults()));
            assertTrue(e.getMessage().startsWith("RDMA_DEVICE is required"), e.getMessage());
        }
        ConfigurationException mtu = assertThrows(ConfigurationException.class,
                () -> Rdma.open(RdmaConfig.builder().device("rxe0").mtu(4096).build()));
        assertTrue(mtu.getMessage().contains("above the active MTU"), mtu.getMessage());
    }

    @Test
    void hundredOpenCloseCyclesLeakNoVerbsObject() throws Exception {
        RxeEnvironment.requireDevices();
        Map<String, Integer> before = resourceCounts();
        for (int i = 0; i < 100; i++) {
            try (RdmaContext ctx = Rdma.open(RdmaConfig.builder().device("rxe0").pollMode(PollMode.values()[i % 3]).build())) {
                ctx.allocate(4096).close();
                ctx.register(ByteBuffer.allocateDirect(8192));
            }
        }
        Map<String, Integer> after = resourceCounts();
        assertEquals(before, after, "rdma resource show counts before/after 100 cycles");
        // close() joins the event-loop thread, so none may be left now.
        Map<Thread, StackTraceElement[]> loops = Thread.getAllStackTraces();
        loops.keySet().removeIf(t -> !t.getName().startsWith("jrdma-loop-"));
        assertEquals(0, loops.size(), () -> "event-loop threads left running: " + loops.entrySet().stream()
                .map(e -> e.getKey().getName() + " " + java.util.Arrays.toString(e.getValue())).toList());
    }

    @Test
    void doubleCloseAndUseAfterCloseFromManyThreads() throws Exception {
        RxeEnvironment.requireDevices();
        for (int round = 0; round < 10; round++) {
            RdmaContext ctx = Rdma.open(rxe0());
            RegisteredBuffer buffer = ctx.allocate(4096);
            int threads = 8;
            CountDownLatch start = new CountDownLatch(1);
            java.util.Queue<Throwable> unexpected = new java.util.concurrent.ConcurrentLinkedQueue<>();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                Thread thread = new Thread(() -> {
                    try {
                        start.await();
                        for (int i = 0; i < 200; i++) {
                            try {
                                if (id % 3 == 0) {
                                    ctx.close();
                                } else if (id % 3 == 1) {
                                    // pooled blocks, local and with a registration of their own
                                    (i % 2 == 0 ? ctx.allocate(4096) : ctx.allocate(4096, Access.REMOTE_READ)).close();
                                } else {
                                    buffer.lkey();
                                    buffer.close();
                                }
                            } catch (RdmaClosedException expected) {
                                // using a closed object is refused: fine
                            }
                        }
                    } catch (Throwable e) {
                        unexpected.add(e);
                    }
                });
                workers.add(thread);
                thread.start();
            }
            start.countDown();
            for (Thread thread : workers) {
                thread.join();
            }
            assertTrue(unexpected.isEmpty(), () -> "unexpected failures: " + unexpected);
            assertTrue(ctx.isClosed());
            assertTrue(buffer.isClosed());
            assertThrows(RdmaClosedException.class, () -> ctx.allocate(64));
            assertThrows(RdmaClosedException.class, buffer::lkey);
            assertThrows(RdmaClosedException.class, buffer::buffer);
            ctx.close();
        }
    }

    @Test
    void closingTheContextClosesItsBuffers() {
        RxeEnvironment.requireDevices();
        RdmaContext ctx = Rdma.open(rxe0());
        RegisteredBuffer registered = ctx.register(ByteBuffer.allocateDirect(4096));
        RegisteredBuffer pooled = ctx.allocate(100);
        ByteBuffer view = pooled.buffer();
        ctx.close();
        assertTrue(registered.isClosed());
        assertTrue(pooled.isClosed());
        assertThrows(RdmaClosedException.class, registered::address);
        view.putLong(0, 42); // the memory of an old view stays valid Java memory: no crash
        assertEquals(42, view.getLong(0));
    }

    /** Per device: "pd 2 cq 1 qp 1 cm_id 0 mr 0 ctx 0 srq 0" from `rdma resource show`. */
    static Map<String, Integer> resourceCounts() throws Exception {
        Processes.Result result = Processes.run(30, "rdma", "resource", "show");
        assertEquals(0, result.exitCode(), result.output());
        Map<String, Integer> counts = new HashMap<>();
        Matcher line = Pattern.compile("(?m)^\\d+: (\\S+): (.*)$").matcher(result.output());
        while (line.find()) {
            Matcher pair = Pattern.compile("(\\w+) (\\d+)").matcher(line.group(2));
            while (pair.find()) {
                counts.put(line.group(1) + "." + pair.group(1), Integer.parseInt(pair.group(2)));
            }
        }
        assertNotEquals(0, counts.size(), result.output());
        return counts;
    }
}
