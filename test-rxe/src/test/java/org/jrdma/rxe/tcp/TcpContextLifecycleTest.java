package org.jrdma.rxe.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.jrdma.Rdma;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.Transport;
import org.jrdma.rxe.contract.ContextLifecycleContract;
import org.jrdma.rxe.contract.Fabric;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The ContextLifecycle contract over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpContextLifecycleTest extends ContextLifecycleContract {
    @Override
    protected Fabric fabric() {
        return Fabric.TCP;
    }

    /** What a TCP context says of itself: the transport, a device named tcp, no device counters. */
    @Test
    void aTcpContextDescribesItself() {
        try (RdmaContext ctx = Rdma.open(RdmaConfig.builder().transport(Transport.TCP).build())) {
            assertEquals(Transport.TCP, ctx.transport());
            assertEquals("tcp", ctx.device().name());
            assertEquals(1, ctx.port().number());
            assertTrue(ctx.deviceCounters().isEmpty());
            assertEquals(0, ctx.counters().messagesSent());
            assertTrue(ctx.toString().startsWith("context over TCP"), ctx.toString());
        }
    }
}
