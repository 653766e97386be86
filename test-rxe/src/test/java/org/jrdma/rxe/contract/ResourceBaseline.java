package org.jrdma.rxe.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A fault test class leaves nothing behind: {@code @ExtendWith(ResourceBaseline.class)} takes the
 * baseline before the class — `rdma resource show` counts of every device, the process's verbs
 * and event descriptors, jrdma's threads, memory outside the Java heap — and after it expects the
 * counts, descriptors and threads back exactly (within 20 s: a server's side of the last channels
 * goes a moment after the client's) and the memory within {@link #MEMORY_BOUND}.
 *
 * <p>librdmacm opens every device and a protection domain on its first use and keeps them for the
 * process: the baseline is taken after one connection has been made in this JVM.
 */
public final class ResourceBaseline implements BeforeAllCallback, AfterAllCallback {
    /** Memory outside the heap a fault class may add (code paths warmed up, JIT, malloc arenas). */
    public static final long MEMORY_BOUND = 64L << 20;
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(ResourceBaseline.class);
    private static boolean librdmacmWarm;

    private record Snapshot(Map<String, Integer> resources, Map<String, Long> descriptors, Map<String, Long> threads,
                            long outsideHeap) { }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        warmLibrdmacm();
        Map<String, Integer> resources = settled(ContextLifecycleContract::resourceCounts, null);
        context.getStore(NAMESPACE).put("baseline", new Snapshot(resources, settled(ResourceBaseline::descriptors, null),
                settled(ResourceBaseline::jrdmaThreads, null), memoryOutsideTheHeap()));
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        Snapshot before = context.getStore(NAMESPACE).get("baseline", Snapshot.class);
        String of = context.getRequiredTestClass().getSimpleName();
        Map<String, Integer> resources = settled(ContextLifecycleContract::resourceCounts, before.resources());
        if (!before.resources().equals(resources)) {
            assertEquals(before.resources(), resources, "rdma resource show counts after " + of + "; who holds them now:\n"
                    + owners(before.resources(), resources) + "contexts not freed: " + contextsNotFreed()
                    + "\njrdma threads:\n" + jrdmaThreadStacks());
        }
        assertEquals(before.descriptors(), settled(ResourceBaseline::descriptors, before.descriptors()),
                "verbs, rdma_cm and event descriptors after " + of);
        assertEquals(before.threads(), settled(ResourceBaseline::jrdmaThreads, before.threads()), "jrdma threads after " + of);
        long grown = memoryOutsideTheHeap() - before.outsideHeap();
        System.out.printf("ResourceBaseline: %s left rdma resources, descriptors and threads as they were; memory outside"
                + " the heap %+d KiB%n", of, grown >> 10);
        assertTrue(grown < MEMORY_BOUND, of + " grew the memory outside the Java heap by " + (grown >> 10) + " KiB");
    }

    /** Makes the one connection after which librdmacm's per-device context and PD stay (once per JVM). */
    public static synchronized void warmLibrdmacm() throws Exception {
        if (librdmacmWarm) {
            return;
        }
        try (Endpoints first = new Endpoints()) {
            InetSocketAddress address = Endpoints.nextAddress();
            first.listen(address, (ch, m) -> { });
            first.connect(address, (ch, m) -> { }).close();
        }
        librdmacmWarm = true;
    }

    /**
     * The value once it equals {@code expected} (null: once two readings agree), or the last reading
     * after 20 s.
     */
    public static <T> T settled(ThrowingSupplier<T> reading, T expected) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        T value = reading.get();
        T previous = null;
        while (System.nanoTime() < end && !(expected == null ? value.equals(previous) : value.equals(expected))) {
            Thread.sleep(200); // polling external views (rdma tool, /proc); the assertion is on the values
            previous = value;
            value = reading.get();
        }
        return value;
    }

    @FunctionalInterface
    public interface ThrowingSupplier<T> {
        T get() throws Exception;
    }

    /**
     * The detailed `rdma resource show KIND` lines (owner pid and command) of each kind whose count
     * differs, e.g. "rxe1.pd": which process, and so which test, kept the resource.
     */
    private static String owners(Map<String, Integer> before, Map<String, Integer> after) throws Exception {
        Set<String> kinds = new TreeSet<>();
        for (String key : after.keySet()) {
            if (!after.get(key).equals(before.get(key)) && key.contains(".")) {
                kinds.add(key.substring(key.indexOf('.') + 1));
            }
        }
        StringBuilder text = new StringBuilder();
        for (String kind : kinds) {
            text.append("rdma resource show ").append(kind).append(":\n")
                    .append(Processes.run(30, "rdma", "resource", "show", kind).output());
        }
        return text.toString();
    }

    /** Open descriptors of the kinds the library creates, by kind: /dev/infiniband/*, eventfd, epoll. */
    public static Map<String, Long> descriptors() throws Exception {
        Map<String, Long> kinds = new TreeMap<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                String target;
                try {
                    target = Files.readSymbolicLink(fd).toString();
                } catch (IOException gone) {
                    continue; // closed while listing (the listing's own descriptor, among others)
                }
                if (target.startsWith("/dev/infiniband/") || target.equals("anon_inode:[eventfd]")
                        || target.equals("anon_inode:[eventpoll]")) {
                    kinds.merge(target, 1L, Long::sum);
                }
            }
        }
        return kinds;
    }

    /** Live threads whose name starts with "jrdma", by name. */
    /**
     * The contexts whose MBean is still registered (a context unregisters it when it is freed, after the
     * last of its channels, buffers and registrations): device, open channels, pool bytes.
     */
    private static String contextsNotFreed() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        StringBuilder text = new StringBuilder();
        for (ObjectName name : server.queryNames(new ObjectName("org.jrdma:type=Context,*"), null)) {
            text.append("\n  ").append(name).append(": open channels ").append(server.getAttribute(name, "OpenChannels"))
                    .append(", pool bytes ").append(server.getAttribute(name, "PoolBytes"));
        }
        return text.length() == 0 ? "none" : text.toString();
    }

    /** Each jrdma thread with its state and where it is (a loop that does not end shows why). */
    private static String jrdmaThreadStacks() {
        StringBuilder text = new StringBuilder();
        jrdmaThreadsAndStacks().forEach((thread, stack) -> {
            text.append("  ").append(thread.getName()).append(" (").append(thread.getState()).append(")\n");
            for (int i = 0; i < Math.min(stack.length, 16); i++) {
                text.append("      at ").append(stack[i]).append('\n');
            }
        });
        return text.toString();
    }

    public static Map<String, Long> jrdmaThreads() {
        Map<String, Long> names = new TreeMap<>();
        for (Thread thread : jrdmaThreadsAndStacks().keySet()) {
            names.merge(thread.getName(), 1L, Long::sum);
        }
        return names;
    }

    private static Map<Thread, StackTraceElement[]> jrdmaThreadsAndStacks() {
        Map<Thread, StackTraceElement[]> all = Thread.getAllStackTraces();
        all.keySet().removeIf(thread -> !thread.getName().startsWith("jrdma"));
        return all;
    }

    /**
     * Resident memory minus what the JVM has committed for its heap (which grows and shrinks on its own).
     * Direct buffers whose owners are gone give their memory back only once their cleaners ran, after a
     * collection and on another thread: collect until the count of direct buffers stops falling.
     */
    public static long memoryOutsideTheHeap() throws Exception {
        BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(
                BufferPoolMXBean.class).stream().filter(b -> b.getName().equals("direct")).findFirst()
                .orElseThrow();
        long before;
        int rounds = 0;
        do {
            before = direct.getCount();
            System.gc();
            Thread.sleep(50); // the cleaner thread's turn
        } while (direct.getCount() < before && ++rounds < 20);
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted();
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) * 1024 - heap;
            }
        }
        throw new AssertionError("no VmRSS in /proc/self/status");
    }
}
