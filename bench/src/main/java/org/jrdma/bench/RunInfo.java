package org.jrdma.bench;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.jrdma.Rdma;
import org.jrdma.RdmaContext;
import org.jrdma.Transport;

/**
 * What a result file needs to be compared with another one later: where, when and how the figures
 * were measured (the tool's and library's versions, the transport and device, the poll mode, the
 * JVM, the host). Written as the "run" object of {@code bench --json}.
 */
record RunInfo(String tool, String library, String startedAt, String transport, String link, boolean emulated,
               String mode, int window, int warmup, String jvm, String os, String host, int cpus) {

    static RunInfo of(RdmaContext ctx, String mode, int window, int warmup) {
        String tool = RunInfo.class.getPackage().getImplementationVersion();
        return new RunInfo(tool == null ? "development build" : tool, Rdma.libraryVersion(),
                Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(), ctx.transport().name().toLowerCase(),
                PingPongCommand.link(ctx), emulated(ctx), mode, window, warmup,
                System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
                hostName(), Runtime.getRuntime().availableProcessors());
    }

    /**
     * A software device (Soft-RoCE, siw): one without a parent device in sysfs is not hardware, and
     * its figures measure the CPU that emulates it.
     */
    static boolean emulated(RdmaContext ctx) {
        if (ctx.transport() != Transport.VERBS) {
            return false;
        }
        String name = ctx.device().name();
        return name.startsWith("rxe") || name.startsWith("siw")
                || !Files.exists(Path.of("/sys/class/infiniband", name, "device"));
    }

    /** The kernel's host name (a name that does not resolve, as in the test VM, is still its name). */
    private static String hostName() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
        } catch (java.io.IOException | SecurityException notLinux) {
            try {
                return InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException e) {
                return "unknown (" + e.getMessage() + ")";
            }
        }
    }
}
