package org.jrdma.rxe.tcp;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.jrdma.Access;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaContext;
import org.jrdma.RegisteredBuffer;

/**
 * The README's example as a program ({@link ReadmeExampleTest} runs it with RDMA_TRANSPORT set and
 * compares the code between the markers with the README's, line by line). Argument: the port.
 */
public final class ReadmeExample {
    private ReadmeExample() {
    }

    public static void main(String[] args) {
        InetSocketAddress address = new InetSocketAddress("127.0.0.1", Integer.parseInt(args[0]));
        // README begin
        try (RdmaContext ctx = Rdma.open()) {                         // the RDMA device, or TCP where there is none
            ctx.listen(address,                                        // server: say what arrives
                    (channel, message) -> System.out.println("received " + message.length() + " bytes"));
            RdmaChannel channel = ctx.connect(address, (ch, m) -> { }).join();
            RegisteredBuffer buffer = ctx.allocate(4096);              // registered memory from the context's pool
            buffer.buffer().put("hello over RDMA".getBytes(StandardCharsets.UTF_8));
            channel.send(buffer, 0, 15).join();                        // completes once the peer's HCA has it
            RegisteredBuffer big = ctx.allocate(64 << 20);             // any size: read by the peer by rendezvous
            channel.send(big, 0, 64 << 20).join();                     // completes once the peer has every byte
            RegisteredBuffer exposed = ctx.allocate(4096, Access.REMOTE_WRITE);
            channel.write(buffer, 0, exposed.remote(), 0, 15).join();  // one-sided write into the peer's memory
            System.out.println("channel: " + channel);
        }
        // README end
    }
}
