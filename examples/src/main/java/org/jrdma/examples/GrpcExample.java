package org.jrdma.examples;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import org.jrdma.netty.RdmaIoHandler;
import org.jrdma.netty.RdmaServerSocketChannel;
import org.jrdma.netty.RdmaSocketChannel;

/**
 * gRPC-java over jrdma: an ordinary grpc-netty server and client whose builders get jrdma's event
 * loop group and channel classes — the only lines that differ from the same program over NIO (marked
 * below). The service is declared without generated code (string messages) to keep the example one file.
 */
final class GrpcExample {
    private static final MethodDescriptor.Marshaller<String> UTF8 = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
            return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
            try {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };
    private static final MethodDescriptor<String, String> SAY_HELLO = MethodDescriptor.<String, String>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("example.Greeter/SayHello")
            .setRequestMarshaller(UTF8).setResponseMarshaller(UTF8).build();
    private static final MethodDescriptor<String, String> COUNT = MethodDescriptor.<String, String>newBuilder()
            .setType(MethodDescriptor.MethodType.SERVER_STREAMING).setFullMethodName("example.Greeter/Count")
            .setRequestMarshaller(UTF8).setResponseMarshaller(UTF8).build();

    private GrpcExample() {
    }

    /** grpc-server HOST:PORT: serves the greeter until the process is killed. */
    static int server(String[] args) throws IOException, InterruptedException {
        if (args.length != 1) {
            System.err.println("usage: grpc-server HOST:PORT");
            return 2;
        }
        ServerServiceDefinition greeter = ServerServiceDefinition.builder("example.Greeter")
                .addMethod(SAY_HELLO, ServerCalls.asyncUnaryCall((name, reply) -> {
                    reply.onNext("hello, " + name);
                    reply.onCompleted();
                }))
                .addMethod(COUNT, ServerCalls.asyncServerStreamingCall((upTo, replies) -> {
                    for (int i = 1; i <= Integer.parseInt(upTo); i++) {
                        replies.onNext(Integer.toString(i));
                    }
                    replies.onCompleted();
                }))
                .build();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(RdmaIoHandler.newFactory()); // NIO: NioIoHandler.newFactory()
        Server server = NettyServerBuilder.forAddress(Examples.address(args[0]))
                .channelType(RdmaServerSocketChannel.class) // NIO: NioServerSocketChannel.class
                .bossEventLoopGroup(group).workerEventLoopGroup(group)
                .addService(greeter).build().start();
        System.out.println("grpc-server listening on " + args[0]);
        server.awaitTermination();
        return 0;
    }

    /** grpc-client HOST:PORT NAME: one unary call and one server-streaming call, checked. */
    static int client(String[] args) throws InterruptedException {
        if (args.length != 2) {
            System.err.println("usage: grpc-client HOST:PORT NAME");
            return 2;
        }
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(RdmaIoHandler.newFactory()); // NIO: NioIoHandler.newFactory()
        ManagedChannel channel = NettyChannelBuilder.forAddress(Examples.address(args[0]))
                .channelType(RdmaSocketChannel.class) // NIO: NioSocketChannel.class
                .eventLoopGroup(group).usePlaintext().build();
        try {
            String greeting = ClientCalls.blockingUnaryCall(channel, SAY_HELLO,
                    CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS), args[1]);
            System.out.println("grpc-client: " + greeting);
            int counted = 0;
            Iterator<String> numbers = ClientCalls.blockingServerStreamingCall(channel, COUNT,
                    CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS), "1000");
            while (numbers.hasNext()) {
                if (Integer.parseInt(numbers.next()) != ++counted) {
                    System.out.println("grpc-client: message " + counted + " of the stream is out of order");
                    return 1;
                }
            }
            System.out.println("grpc-client: streamed " + counted + " messages in order");
            return counted == 1000 ? 0 : 1;
        } finally {
            channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
