package org.jrdma.rxe.shm;

import java.net.InetSocketAddress;
import org.jrdma.Access;
import org.jrdma.ChannelHandler;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaMessage;
import org.jrdma.RegisteredBuffer;
import org.jrdma.Transport;

/**
 * The server process of {@link ShmTransportTest}: a shared-memory context listening on 127.0.0.1 at
 * the port given, which echoes every message and hands each client a token for 64 KiB of its memory
 * (read, write and atomics); prints "listening" once ready and ends when its standard input closes.
 */
public final class ShmPeer {
    private ShmPeer() {
    }

    public static void main(String[] args) throws Exception {
        try (RdmaContext context = Rdma.open(RdmaConfig.builder().transport(Transport.SHM).build())) {
            RegisteredBuffer exposed = context.allocate(64 * 1024, Access.REMOTE_READ, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC);
            context.listen(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[0])), new ChannelHandler() {
                @Override
                public void onOpen(RdmaChannel channel) {
                    channel.sendToken(exposed, Access.REMOTE_READ, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC);
                }

                @Override
                public void onMessage(RdmaChannel channel, RdmaMessage message) {
                    RegisteredBuffer reply = context.allocate(Math.max(1, message.length()));
                    reply.buffer().put(message.payload());
                    channel.send(reply, 0, message.length()).whenComplete((done, failed) -> reply.close());
                }
            });
            System.out.println("listening");
            System.out.flush();
            while (System.in.read() >= 0) {
                // until the test closes our input
            }
        }
    }
}
