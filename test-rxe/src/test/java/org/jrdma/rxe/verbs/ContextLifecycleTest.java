package org.jrdma.rxe.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.jrdma.ConfigurationException;
import org.jrdma.Rdma;
import org.jrdma.PollMode;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.rxe.contract.ContextLifecycleContract;
import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.RxeEnvironment;
import org.junit.jupiter.api.Test;

/** The ContextLifecycle contract over verbs (Soft-RoCE in the VM), and what only verbs has. */
class ContextLifecycleTest extends ContextLifecycleContract {
    @Override
    protected Fabric fabric() {
        return Fabric.VERBS;
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
                .map(e -> e.getKey().getName() + " " + Arrays.toString(e.getValue())).toList());
    }
}
