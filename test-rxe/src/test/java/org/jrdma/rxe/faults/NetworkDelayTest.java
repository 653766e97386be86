package org.jrdma.rxe.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.jrdma.rxe.contract.Endpoints;
import org.jrdma.rxe.contract.Processes;
import org.jrdma.rxe.contract.RendezvousContract;
import org.jrdma.rxe.contract.ResourceBaseline;
import org.jrdma.rxe.contract.RxeEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A link with delay (netem on both ends of the veth pair): slow but correct — every message, eager
 * and rendezvous, arrives intact and in order. The queue is long enough that netem drops nothing:
 * Soft-RoCE 6.1 recovers from loss incorrectly (docs/testing.md), so loss is not emulated.
 */
@ExtendWith(ResourceBaseline.class) // the fault leaves no resource behind
class NetworkDelayTest {
    private static final int MIB = 1 << 20;

    private static void tc(String... args) throws Exception {
        String[] command = new String[args.length + 1];
        command[0] = "tc";
        System.arraycopy(args, 0, command, 1, args.length);
        Processes.Result result = Processes.run(30, command);
        assertEquals(0, result.exitCode(), String.join(" ", command) + ": " + result.output());
    }

    @Test
    void aDelayedLinkCarriesEveryMessageIntactAndInOrder() throws Exception {
        RxeEnvironment.requireDevices();
        assertEquals("two", RxeEnvironment.topology(), "needs traffic across the veth pair");
        // netem is a module of the guest's kernel tree, not in the initramfs: load it from there.
        String modules = System.getenv("JRDMA_VM_MODULES_ROOT");
        Processes.Result load = Processes.run(30, "modprobe", "-d", modules, "sch_netem");
        assertEquals(0, load.exitCode(), "modprobe sch_netem: " + load.output());
        tc("qdisc", "add", "dev", "veth0", "root", "netem", "delay", "5ms", "limit", "100000");
        tc("qdisc", "add", "dev", "veth1", "root", "netem", "delay", "5ms", "limit", "100000");
        try (Endpoints e = new Endpoints()) {
            long start = System.nanoTime();
            int[] sizes = new int[120];
            int[] kinds = {8, 4080, 4081, 65536, MIB + 3, 100};
            for (int i = 0; i < sizes.length; i++) {
                sizes[i] = kinds[i % kinds.length];
            }
            RendezvousContract.stream(e, sizes);
            System.out.println("NetworkDelayTest: 120 messages (20 of 1 MiB) over a 10 ms round trip took "
                    + (System.nanoTime() - start) / 1_000_000 + " ms");
            for (String dev : new String[] {"veth0", "veth1"}) {
                String stats = Processes.run(30, "tc", "-s", "qdisc", "show", "dev", dev).output();
                assertTrue(stats.contains("dropped 0,"), "netem on " + dev + " dropped packets: " + stats);
            }
        } finally {
            tc("qdisc", "del", "dev", "veth0", "root");
            tc("qdisc", "del", "dev", "veth1", "root");
        }
    }
}
