package org.jrdma.examples;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jrdma.Access;
import org.jrdma.ChannelHandler;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaMessage;
import org.jrdma.RdmaServer;
import org.jrdma.RegisteredBuffer;
import org.jrdma.RemoteBuffer;

/**
 * One-sided operations, no code on the server's side per operation: the server exposes a greeting to
 * each client with a read-only token; the client reads it, then has the server's remote-memory agent
 * allocate memory for it, writes into that memory, reads it back, adds to a counter in it atomically
 * and gives it back — the server's CPU runs none of those transfers.
 */
final class RemoteMemoryExample {
    static final String GREETING = "read one-sidedly from the server's memory";
    static final int SIZE = 1 << 20;

    private RemoteMemoryExample() {
    }

    /** memory-server HOST:PORT: hands each client a token to its greeting and serves allocations, until killed. */
    static int server(String[] args) throws InterruptedException {
        if (args.length != 1) {
            System.err.println("usage: memory-server HOST:PORT");
            return 2;
        }
        RdmaContext context = Rdma.open(RdmaConfig.fromEnvironment()); // agent limits: RdmaConfig.agentLimits()
        byte[] text = GREETING.getBytes(StandardCharsets.UTF_8);
        // Registered exactly (a pool block would be larger): the token grants these bytes and no others.
        RegisteredBuffer greeting = context.register(ByteBuffer.allocateDirect(text.length).put(text).flip());
        RdmaServer server = context.listen(Examples.address(args[0]), new ChannelHandler() {
            @Override
            public void onOpen(RdmaChannel channel) {
                channel.sendToken(greeting, Access.REMOTE_READ); // read-only, exactly these bytes
            }

            @Override
            public void onMessage(RdmaChannel channel, RdmaMessage message) {
            }
        });
        System.out.println("memory-server listening on " + server.localAddress() + " over " + context.transport());
        Thread.currentThread().join();
        return 0;
    }

    /** memory-client HOST:PORT: reads the greeting, then writes, reads and adds in memory the server's agent allocates. */
    static int client(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: memory-client HOST:PORT");
            return 2;
        }
        CompletableFuture<RemoteBuffer> token = new CompletableFuture<>();
        try (RdmaContext context = Rdma.open(RdmaConfig.fromEnvironment())) {
            RdmaChannel channel = context.connect(Examples.address(args[0]), new ChannelHandler() {
                @Override
                public void onToken(RdmaChannel ch, RemoteBuffer remote) {
                    token.complete(remote);
                }

                @Override
                public void onMessage(RdmaChannel ch, RdmaMessage message) {
                }
            }).get(30, TimeUnit.SECONDS);
            RegisteredBuffer local = context.allocate(SIZE);

            RemoteBuffer greeting = token.get(30, TimeUnit.SECONDS);
            channel.read(greeting, 0, local, 0, (int) greeting.length()).get(30, TimeUnit.SECONDS);
            byte[] text = new byte[(int) greeting.length()];
            local.buffer().get(text);
            System.out.println("memory-client: read \"" + new String(text, StandardCharsets.UTF_8) + "\"");

            RemoteBuffer allocated = channel.allocateRemote(SIZE, Access.REMOTE_WRITE, Access.REMOTE_READ, Access.REMOTE_ATOMIC)
                    .get(30, TimeUnit.SECONDS);
            for (int i = 0; i < SIZE; i++) {
                local.buffer().put(i, (byte) (i * 7));
            }
            channel.write(local, 0, allocated, 0, SIZE).get(30, TimeUnit.SECONDS);
            local.buffer().put(0, new byte[SIZE]); // cleared, then filled again from the server's memory
            channel.read(allocated, 0, local, 0, SIZE).get(30, TimeUnit.SECONDS);
            for (int i = 0; i < SIZE; i++) {
                if (local.buffer().get(i) != (byte) (i * 7)) {
                    System.out.println("memory-client: byte " + i + " read back differs");
                    return 1;
                }
            }
            local.buffer().putLong(0, 0); // a counter in the first 8 bytes, zeroed by a one-sided write
            channel.write(local, 0, allocated, 0, Long.BYTES).get(30, TimeUnit.SECONDS);
            long before = channel.fetchAndAdd(allocated, 0, 5).get(30, TimeUnit.SECONDS);
            long after = channel.fetchAndAdd(allocated, 0, 0).get(30, TimeUnit.SECONDS);
            channel.releaseRemote(allocated).get(30, TimeUnit.SECONDS);
            if (before != 0 || after != 5) {
                System.out.println("memory-client: fetch-and-add gave " + before + " then " + after);
                return 1;
            }
            System.out.println("memory-client: wrote and read back " + SIZE + " bytes of agent memory, fetch-and-add "
                    + before + " -> " + after + ", released, over " + context.transport());
            channel.close();
            return 0;
        }
    }
}
