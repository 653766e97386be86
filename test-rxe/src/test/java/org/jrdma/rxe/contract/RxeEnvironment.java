package org.jrdma.rxe.contract;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jrdma.AsyncEvent;
import org.jrdma.AsyncEventType;

/**
 * Facts about the Soft-RoCE environment the suite runs in (set up by test-rxe/vm/rxe-setup.sh).
 * A missing device is a test failure here, never a skip: this suite exists to run on a device.
 */
public final class RxeEnvironment {
    public static final Path SYSFS = Path.of("/sys/class/infiniband");
    /** Address of rxe0's netdev (veth0). */
    public static final String ADDRESS_0 = "10.77.0.1";
    /** Address of rxe1's netdev (veth1), in the two-device topology. */
    public static final String ADDRESS_1 = "10.77.0.2";

    private RxeEnvironment() {
    }

    /** Names of the RDMA devices in sysfs; fails the test when there is none. */
    public static List<String> requireDevices() {
        assertTrue(Files.isDirectory(SYSFS), "no " + SYSFS + ": no RDMA device (run this suite with test-rxe/run-suite)");
        try (Stream<Path> entries = Files.list(SYSFS)) {
            List<String> names = entries.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
            if (names.isEmpty()) {
                fail("no RDMA device in " + SYSFS);
            }
            return names;
        } catch (IOException e) {
            throw new AssertionError("cannot list " + SYSFS, e);
        }
    }

    /** "one" or "two" (JRDMA_VM_TOPOLOGY), "one" outside the VM. */
    public static String topology() {
        String value = System.getenv("JRDMA_VM_TOPOLOGY");
        return value == null ? "one" : value;
    }

    /** The device and address a server uses; the client uses {@link #clientDevice()} and connects to this address. */
    public static String serverDevice() {
        return "rxe0";
    }

    public static String clientDevice() {
        return topology().equals("two") ? "rxe1" : "rxe0";
    }

    public static String readSysfs(Path path) {
        try {
            return Files.readString(path).trim();
        } catch (IOException e) {
            throw new AssertionError("cannot read " + path, e);
        }
    }
    /** The next async event of {@code type} within 30 s, or null. */
    public static AsyncEvent nextAsyncEvent(BlockingQueue<AsyncEvent> events, AsyncEventType type) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            AsyncEvent event = events.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (event != null && event.type() == type) {
                return event;
            }
        }
        return null;
    }
}
