package org.jrdma.rxe.verbs;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RegisteredBuffer;
import org.jrdma.rxe.contract.Endpoints;
import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.MessagingContract;
import org.junit.jupiter.api.Test;

/** The Messaging contract over verbs (Soft-RoCE in the VM), and what only verbs has. */
class MessagingTest extends MessagingContract {
    @Override
    protected Fabric fabric() {
        return Fabric.VERBS;
    }

    @Test
    void inlineSizesAboveTheDeviceLimitOrOffStillCarryEveryMessage() throws Exception {
        for (int maxInline : new int[] {1024, 0}) {
            try (Endpoints e = new Endpoints(Fabric.VERBS, RdmaConfig.builder().maxInline(maxInline))) {
                InetSocketAddress address = e.address();
                e.listen(address, new Echo(e.server));
                BlockingQueue<byte[]> replies = new LinkedBlockingQueue<>();
                RdmaChannel channel = e.connect(address, copiesInto(replies));
                RegisteredBuffer out = e.client.allocate(4096);
                for (int size : new int[] {1, 64, 219, 220, 221, 495, 496, 497, 1000, 4080}) {
                    byte[] data = pattern(size, size + maxInline);
                    out.buffer().put(data);
                    channel.send(out, 0, size).get(10, TimeUnit.SECONDS);
                    byte[] echoed = replies.poll(10, TimeUnit.SECONDS);
                    assertTrue(Arrays.equals(data, echoed), "maxInline " + maxInline + ", size " + size);
                }
            }
        }
    }
}
