package org.jrdma.rxe.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jrdma.RdmaChannel;
import org.jrdma.RegisteredBuffer;
import org.jrdma.rxe.contract.ContextLifecycleContract;
import org.jrdma.rxe.contract.Endpoints;
import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.Patterns;
import org.jrdma.rxe.contract.RendezvousContract;
import org.junit.jupiter.api.Test;

/** The Rendezvous contract over verbs (Soft-RoCE in the VM), and what only verbs has. */
class RendezvousTest extends RendezvousContract {
    @Override
    protected Fabric fabric() {
        return Fabric.VERBS;
    }

    /**
     * Large messages leak no registration: the sender's source registration ends with each transfer,
     * and the receiver's block goes back to its context (kept for the next message, not added to).
     */
    @Test
    void manyLargeMessagesLeaveTheRegistrationCountFlat() throws Exception {
        try (Endpoints e = new Endpoints(Fabric.VERBS)) {
            InetSocketAddress address = e.address();
            BlockingQueue<String> received = new LinkedBlockingQueue<>();
            e.listen(address, (ch, m) -> received.add(String.valueOf(Patterns.check(m.payload(), m.length(), 7))));
            RdmaChannel channel = e.connect(address, (ch, m) -> { });
            RegisteredBuffer out = e.client.allocate(4 * MIB);
            Patterns.fill(out.buffer(), 0, 4 * MIB, 7);
            channel.send(out, 0, 4 * MIB).get(60, TimeUnit.SECONDS);
            assertEquals("null", received.poll(30, TimeUnit.SECONDS));
            Map<String, Integer> before = ContextLifecycleContract.resourceCounts();
            for (int i = 0; i < 20; i++) {
                channel.send(out, 0, 4 * MIB).get(60, TimeUnit.SECONDS);
                assertEquals("null", received.poll(30, TimeUnit.SECONDS), "message " + i);
            }
            assertEquals(before, ContextLifecycleContract.resourceCounts(), "rdma resource show after 20 more messages");
        }
    }
}
