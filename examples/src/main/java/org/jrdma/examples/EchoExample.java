package org.jrdma.examples;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jrdma.ChannelHandler;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaMessage;
import org.jrdma.RdmaServer;
import org.jrdma.RegisteredBuffer;

/**
 * Two-sided messages: a server sends back every message it receives; a client sends numbered messages
 * one at a time, checks each answer and prints the round trips' median.
 */
final class EchoExample {
    static final int SIZE = 64;

    private EchoExample() {
    }

    /** echo-server HOST:PORT: answers each message with its bytes, until the process is killed. */
    static int server(String[] args) throws InterruptedException {
        if (args.length != 1) {
            System.err.println("usage: echo-server HOST:PORT");
            return 2;
        }
        RdmaContext context = Rdma.open(RdmaConfig.fromEnvironment());
        RdmaServer server = context.listen(Examples.address(args[0]), new ChannelHandler() {
            @Override
            public void onMessage(RdmaChannel channel, RdmaMessage message) {
                // The payload is valid only during this call: copy it into registered memory of our own to send it back.
                RegisteredBuffer answer = context.allocate(message.length());
                answer.buffer().put(message.payload());
                channel.send(answer, 0, message.length()).whenComplete((done, failure) -> answer.close());
            }
        });
        System.out.println("echo-server listening on " + server.localAddress() + " over " + context.transport());
        Thread.currentThread().join();
        return 0;
    }

    /** echo-client HOST:PORT COUNT: COUNT round trips of 64 bytes, each answer checked. */
    static int client(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: echo-client HOST:PORT COUNT");
            return 2;
        }
        int count = Integer.parseInt(args[1]);
        try (RdmaContext context = Rdma.open(RdmaConfig.fromEnvironment())) {
            Answers answers = new Answers();
            RdmaChannel channel = context.connect(Examples.address(args[0]), answers).get(30, TimeUnit.SECONDS);
            RegisteredBuffer request = context.allocate(SIZE);
            long[] nanos = new long[count];
            for (int i = 0; i < count; i++) {
                request.buffer().putInt(0, i);
                CompletableFuture<Integer> answer = answers.next();
                long start = System.nanoTime();
                channel.send(request, 0, SIZE).get(30, TimeUnit.SECONDS);
                int echoed = answer.get(30, TimeUnit.SECONDS);
                nanos[i] = System.nanoTime() - start;
                if (echoed != i) {
                    System.out.println("echo-client: message " + i + " came back as " + echoed);
                    return 1;
                }
            }
            Arrays.sort(nanos);
            System.out.printf("echo-client: %d round trips of %d B checked, median %.1f us, over %s%n", count, SIZE,
                    nanos[count / 2] / 1000.0, context.transport());
            channel.close();
            return 0;
        }
    }

    /** The client's handler: completes the pending answer with the number at the start of each message. */
    private static final class Answers implements ChannelHandler {
        private volatile CompletableFuture<Integer> pending;

        CompletableFuture<Integer> next() {
            CompletableFuture<Integer> answer = new CompletableFuture<>();
            pending = answer;
            return answer;
        }

        @Override
        public void onMessage(RdmaChannel channel, RdmaMessage message) {
            pending.complete(message.payload().getInt(0));
        }

        @Override
        public void onClose(RdmaChannel channel, Throwable cause) {
            CompletableFuture<Integer> answer = pending;
            if (answer != null) {
                answer.completeExceptionally(cause != null ? cause : new IllegalStateException("channel closed"));
            }
        }
    }
}
