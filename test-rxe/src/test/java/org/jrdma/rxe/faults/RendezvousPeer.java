package org.jrdma.rxe.faults;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RegisteredBuffer;
import org.jrdma.rxe.contract.Patterns;

/**
 * The other process of {@link PeerDeathTest}, killed in the middle of rendezvous transfers:
 * {@code receive DEVICE IP PORT} listens and prints "RECEIVED n" per message;
 * {@code send DEVICE LOCAL_IP IP PORT COUNT SIZE} connects and sends COUNT messages of SIZE bytes at
 * once, then prints "SENDING". Either then waits to be killed.
 */
public final class RendezvousPeer {
    private RendezvousPeer() {
    }

    public static void main(String[] args) throws Exception {
        RdmaContext context = Rdma.open(RdmaConfig.builder().device(args[1]).build());
        if (args[0].equals("receive")) {
            AtomicInteger received = new AtomicInteger();
            context.listen(new InetSocketAddress(args[2], Integer.parseInt(args[3])), (channel, message) -> {
                System.out.println("RECEIVED " + received.incrementAndGet());
                System.out.flush();
            });
            System.out.println("LISTENING");
        } else {
            InetSocketAddress server = new InetSocketAddress(args[3], Integer.parseInt(args[4]));
            RdmaChannel channel = context.connect(server, InetAddress.getByName(args[2]), (ch, m) -> { })
                    .get(60, TimeUnit.SECONDS);
            int count = Integer.parseInt(args[5]);
            int size = Integer.parseInt(args[6]);
            RegisteredBuffer out = context.allocate(size);
            Patterns.fill(out.buffer(), 0, size, 1);
            for (int i = 0; i < count; i++) {
                channel.send(out, 0, size);
            }
            System.out.println("SENDING");
        }
        System.out.flush();
        new CountDownLatch(1).await(); // until killed
    }
}
