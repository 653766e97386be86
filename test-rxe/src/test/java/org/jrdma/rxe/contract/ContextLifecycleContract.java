package org.jrdma.rxe.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;
import org.jrdma.Access;
import org.jrdma.Rdma;
import org.jrdma.RdmaClosedException;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RegisteredBuffer;
import org.junit.jupiter.api.Test;

/** Opening and closing contexts: selection on a real device, no leaked verbs objects, safe double close and use after close. */
public abstract class ContextLifecycleContract {
    /** {@return what this run of the contract goes over} */
    protected abstract Fabric fabric();

    public static RdmaConfig rxe0() {
        return RdmaConfig.builder().device("rxe0").build();
    }

    @Test
    void doubleCloseAndUseAfterCloseFromManyThreads() throws Exception {
        fabric().require();
        for (int round = 0; round < 10; round++) {
            RdmaContext ctx = Rdma.open(fabric().serverConfig(RdmaConfig.builder()));
            RegisteredBuffer buffer = ctx.allocate(4096);
            int threads = 8;
            CountDownLatch start = new CountDownLatch(1);
            Queue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
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
        fabric().require();
        RdmaContext ctx = Rdma.open(fabric().serverConfig(RdmaConfig.builder()));
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

    /**
     * Above the pool's size classes: exactly the size asked for, the block kept for the next such buffer.
     * (Past the direct-memory limit: verbs.RegistrationTest, in the VM, whose JVM has a limit below 2 GiB.)
     */
    @Test
    void largeAllocationsHaveTheirSizeAndReuseTheirBlock() {
        fabric().require();
        try (RdmaContext ctx = Rdma.open(fabric().serverConfig(RdmaConfig.builder()))) {
            RegisteredBuffer large = ctx.allocate(3 << 20);
            assertEquals(3 << 20, large.length());
            assertEquals(3 << 20, large.buffer().capacity());
            long address = large.address();
            large.close();
            RegisteredBuffer again = ctx.allocate((3 << 20) + 1);
            assertEquals((3 << 20) + 1, again.length());
            assertEquals(address, again.address(), "the closed block is handed out again, still registered");
            again.close();
        }
    }

    /**
     * A burst of pool buffers goes back after they closed: blocks come from the oldest slabs, and of the slabs
     * (2 MiB each) that stayed empty for a second, all but one per size class are deregistered by the event
     * loop and their pages given back (a view a careless program kept reads zeros: mapped, not freed). JMX
     * shows the pool's size.
     */
    @Test
    void aBurstOfPoolBuffersIsGivenBackWhenTheyClose() throws Exception {
        fabric().require();
        Set<ObjectName> before = ContextBean.registered();
        try (RdmaContext ctx = Rdma.open(fabric().serverConfig(RdmaConfig.builder()))) {
            ContextBean bean = ContextBean.openedSince(before);
            int slab = 2 << 20;
            int block = 64 << 10;
            int perSlab = slab / block;
            List<RegisteredBuffer> burst = new ArrayList<>();
            for (int i = 0; i < 7 * perSlab - 5; i++) {
                RegisteredBuffer b = ctx.allocate(block);
                b.buffer().put(0, (byte) 0x5A).put(block - 1, (byte) 0x5A);
                burst.add(b);
            }
            assertEquals(7L * slab, bean.poolBytes(), "7 slabs of 64 KiB blocks");
            ByteBuffer kept = burst.get(burst.size() - 1).buffer(); // in the newest slab
            for (RegisteredBuffer b : burst) {
                b.close();
            }
            awaitPoolBytes(bean, slab); // one empty slab stays
            assertEquals(0, kept.get(0), "the retired slab's pages were given back");
            assertEquals(0, kept.get(block - 1));
            for (int round = 0; round < 3; round++) { // allocate and close in a loop: the spare slab serves it
                try (RegisteredBuffer again = ctx.allocate(block, Access.REMOTE_READ, Access.REMOTE_WRITE)) {
                    again.buffer().put(0, (byte) round);
                    assertEquals(round, again.buffer().get(0));
                }
                assertEquals((long) slab, bean.poolBytes());
            }
            List<RegisteredBuffer> second = new ArrayList<>();
            for (int i = 0; i < perSlab + 1; i++) {
                second.add(ctx.allocate(block));
            }
            assertEquals(2L * slab, bean.poolBytes(), "the pool grows again");
            second.get(perSlab).buffer().put(0, (byte) 7);
            assertEquals(7, second.get(perSlab).buffer().get(0));
            second.forEach(RegisteredBuffer::close);
            awaitPoolBytes(bean, slab);
        }
    }

    /** Waits for the pool to shrink to {@code bytes}: the loop retires a slab a second after it emptied. */
    private static void awaitPoolBytes(ContextBean bean, long bytes) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        long now = bean.poolBytes();
        while (now != bytes && System.nanoTime() - deadline < 0) {
            Thread.sleep(50);
            now = bean.poolBytes();
        }
        assertEquals(bytes, now, "the pool's registered bytes");
    }

    /** Per device: "pd 2 cq 1 qp 1 cm_id 0 mr 0 ctx 0 srq 0" from `rdma resource show`. */
    public static Map<String, Integer> resourceCounts() throws Exception {
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
