package org.jrdma.rxe.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jrdma.AsyncEvent;
import org.jrdma.AsyncEventType;
import org.jrdma.Rdma;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.rxe.contract.Processes;
import org.jrdma.rxe.contract.ResourceBaseline;
import org.jrdma.rxe.contract.RxeEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Device async events reach the listener on the event loop: link down gives PORT_ERR, link up PORT_ACTIVE. */
@ExtendWith(ResourceBaseline.class) // the fault leaves no resource behind
class AsyncEventTest {
    @Test
    void linkDownAndUpAreDelivered() throws Exception {
        RxeEnvironment.requireDevices();
        String device = RxeEnvironment.topology().equals("two") ? "rxe1" : "rxe0";
        String netdev = device.equals("rxe1") ? "veth1" : "veth0";
        BlockingQueue<AsyncEvent> events = new LinkedBlockingQueue<>();
        try (RdmaContext ctx = Rdma.open(RdmaConfig.builder().device(device).build())) {
            ctx.addAsyncEventListener(events::add);
            try {
                assertEquals(0, Processes.run(30, "ip", "link", "set", netdev, "down").exitCode());
                AsyncEvent down = RxeEnvironment.nextAsyncEvent(events, AsyncEventType.PORT_ERR);
                assertNotNull(down, "no PORT_ERR within 30 s after " + netdev + " went down");
                assertEquals(1, down.port());
                assertEquals(AsyncEvent.Severity.ERROR, down.severity());
            } finally {
                Processes.run(30, "ip", "link", "set", netdev, "up");
            }
            AsyncEvent up = RxeEnvironment.nextAsyncEvent(events, AsyncEventType.PORT_ACTIVE);
            assertNotNull(up, "no PORT_ACTIVE within 30 s after " + netdev + " came back");
            assertEquals(AsyncEvent.Severity.INFO, up.severity());
            assertNull(ctx.failure(), "a port error is not fatal for the context");
        }
        // Give rxe a moment to settle the port for the tests that follow.
        for (int i = 0; i < 50 && !RxeEnvironment.readSysfs(RxeEnvironment.SYSFS.resolve(device + "/ports/1/state")).contains("ACTIVE"); i++) {
            Thread.sleep(100);
        }
    }

}
