package org.jrdma.rxe.contract;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.ChannelHandler;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaMessage;
import org.jrdma.RdmaServer;
import org.jrdma.RegisteredBuffer;

/**
 * The other side of {@link ManyChannelsContract}, a JVM of its own (a context holding thousands of
 * channels needs thousands of descriptors; two contexts in one process would need twice as many):
 * listens on {@code HOST PORT} with the transport and device of {@code RDMA_*}, answers every message
 * with one byte, prints "LISTENING" and, for every thousand channels that opened or closed, "OPEN n" /
 * "CLOSED n"; ends when its standard input does. A failure prints "FAILED class: message" and exits with 1.
 */
public final class EchoPeer {
    private EchoPeer() {
    }

    public static void main(String[] args) throws IOException {
        try (RdmaContext context = Rdma.open(RdmaConfig.fromEnvironment().toBuilder().maxPendingConnections(1024).build())) {
            RegisteredBuffer reply = context.allocate(64);
            AtomicInteger opened = new AtomicInteger();
            AtomicInteger closed = new AtomicInteger();
            ChannelHandler echo = new ChannelHandler() {
                @Override
                public void onOpen(RdmaChannel channel) {
                    report("OPEN", opened.incrementAndGet());
                }

                @Override
                public void onMessage(RdmaChannel channel, RdmaMessage message) {
                    channel.send(reply, 0, 1); // one byte, the same for every channel: the answer is its arrival
                }

                @Override
                public void onClose(RdmaChannel channel, Throwable cause) {
                    report("CLOSED", closed.incrementAndGet());
                }
            };
            try (RdmaServer server = context.listen(new InetSocketAddress(args[0], Integer.parseInt(args[1])), echo)) {
                print("LISTENING " + server.localAddress().getPort());
                while (System.in.read() >= 0) {
                    // until the test closes our input
                }
            }
        } catch (Throwable t) {
            print("FAILED " + t.getClass().getName() + ": " + t.getMessage());
            System.exit(1);
        }
        System.exit(0);
    }

    private static void report(String what, int count) {
        if (count % 1000 == 0) {
            print(what + " " + count);
        }
    }

    private static void print(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
