package org.jrdma.bench;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;
import org.jrdma.Gid;
import org.jrdma.Rdma;
import org.jrdma.RdmaDevice;
import org.jrdma.RdmaPort;
import picocli.CommandLine.Command;

/** Prints the library version and every RDMA device with its ports and GID table. */
@Command(name = "devices", mixinStandardHelpOptions = true,
        description = "the library version and every RDMA device with its ports and GIDs (exit code 1: none)")
final class DevicesCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        return run(System.out);
    }

    /** Exit status: 0 with at least one device, 1 when the library is unusable or no device exists. */
    static int run(PrintStream out) {
        out.println("java: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        if (!Rdma.isAvailable()) {
            out.println("jrdma: NOT available: " + Rdma.unavailabilityCause());
            return 1;
        }
        out.println("jrdma: native library " + Rdma.libraryVersion() + " loaded");
        List<RdmaDevice> devices = Rdma.devices();
        if (devices.isEmpty()) {
            out.println("devices: none (no RDMA NIC and no Soft-RoCE device; see README for the VM)");
            return 1;
        }
        for (RdmaDevice device : devices) {
            out.printf("device %s  node_guid %s%n", device.name(), device.nodeGuidText());
            for (RdmaPort port : device.ports()) {
                out.printf("  port %d  %s  %s  active_mtu %d  max_mtu %d  lid %d%n", port.number(), port.state(),
                        port.linkLayer(), port.activeMtu(), port.maxMtu(), port.lid());
                for (Gid gid : port.gids()) {
                    out.printf("    gid[%d] %s  %s%s%n", gid.index(), gid, gid.type(),
                            gid.ip().map(ip -> "  " + ip.getHostAddress()).orElse(""));
                }
            }
        }
        return 0;
    }
}
