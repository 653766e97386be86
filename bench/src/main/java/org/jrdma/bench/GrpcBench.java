package org.jrdma.bench;

import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyChannelBuilder.LocalSocketPicker;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.netty.channel.EventLoopGroup;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * gRPC-java (grpc-netty) over each Netty transport, as an application uses it: unary calls of small
 * messages from a blocking stub, and a client stream of large messages (with gRPC's flow control:
 * the next message goes out when the call is ready) answered once at its end.
 */
final class GrpcBench implements AutoCloseable {
    private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };
    private static final MethodDescriptor<byte[], byte[]> ECHO = method("Echo", MethodDescriptor.MethodType.UNARY);
    private static final MethodDescriptor<byte[], byte[]> SINK = method("Sink", MethodDescriptor.MethodType.CLIENT_STREAMING);

    private final EventLoopGroup serverGroup;
    private final EventLoopGroup clientGroup;
    private final Server server;
    private final ManagedChannel channel;

    GrpcBench(NettyTransports transport, NettyEndpoints endpoints) throws IOException {
        serverGroup = endpoints.serverGroup(transport);
        clientGroup = endpoints.clientGroup(transport);
        InetSocketAddress address = endpoints.server();
        server = NettyServerBuilder.forAddress(address).channelType(transport.serverChannel()).bossEventLoopGroup(serverGroup)
                .workerEventLoopGroup(serverGroup).maxInboundMessageSize(64 << 20).addService(service()).build().start();
        int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
        channel = NettyChannelBuilder.forAddress(new InetSocketAddress(address.getAddress(), port))
                .channelType(transport.channel()).eventLoopGroup(clientGroup).usePlaintext()
                .localSocketPicker(endpoints.client() == null ? null : new LocalSocketPicker() {
                    @Override
                    public SocketAddress createSocketAddress(SocketAddress remote, Attributes attributes) {
                        return endpoints.clientBind();
                    }
                }).build();
    }

    private static MethodDescriptor<byte[], byte[]> method(String name, MethodDescriptor.MethodType type) {
        return MethodDescriptor.<byte[], byte[]>newBuilder().setType(type).setFullMethodName("bench.Grpc/" + name)
                .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
    }

    private static ServerServiceDefinition service() {
        return ServerServiceDefinition.builder("bench.Grpc")
                .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, response) -> {
                    response.onNext(request);
                    response.onCompleted();
                }))
                .addMethod(SINK, ServerCalls.asyncClientStreamingCall(response -> new StreamObserver<byte[]>() {
                    private long bytes;

                    @Override
                    public void onNext(byte[] value) {
                        bytes += value.length;
                    }

                    @Override
                    public void onError(Throwable t) {
                    }

                    @Override
                    public void onCompleted() {
                        response.onNext(java.nio.ByteBuffer.allocate(8).putLong(bytes).array());
                        response.onCompleted();
                    }
                }))
                .build();
    }

    /** Unary round trips of {@code size} bytes, in tenths of microseconds. */
    Histogram unary(int size, int warmup, int iterations) {
        byte[] request = new byte[size];
        Histogram rtt = new Histogram(3);
        for (int i = 0; i < warmup + iterations; i++) {
            long start = System.nanoTime();
            ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT, request);
            if (i >= warmup) {
                rtt.recordValue((System.nanoTime() - start) / 10);
            }
        }
        return rtt;
    }

    /** MiB/s of a client stream of {@code count} messages of {@code size} bytes, until the server's answer. */
    double stream(int size, int count) throws Exception {
        byte[] message = new byte[size];
        CompletableFuture<Long> done = new CompletableFuture<>();
        long start = System.nanoTime();
        ClientCalls.asyncClientStreamingCall(channel.newCall(SINK, CallOptions.DEFAULT), new ClientResponseObserver<byte[], byte[]>() {
            private int sent;

            @Override
            public void beforeStart(ClientCallStreamObserver<byte[]> requests) {
                requests.setOnReadyHandler(() -> {
                    while (requests.isReady() && sent < count) {
                        requests.onNext(message);
                        if (++sent == count) {
                            requests.onCompleted();
                        }
                    }
                });
            }

            @Override
            public void onNext(byte[] value) {
                done.complete(java.nio.ByteBuffer.wrap(value).getLong());
            }

            @Override
            public void onError(Throwable t) {
                done.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
            }
        });
        long bytes = done.get(300, TimeUnit.SECONDS);
        double seconds = (System.nanoTime() - start) / 1e9;
        if (bytes != (long) size * count) {
            throw new IllegalStateException("the server received " + bytes + " bytes of " + (long) size * count);
        }
        return bytes / (1024.0 * 1024.0) / seconds;
    }

    @Override
    public void close() throws InterruptedException {
        channel.shutdownNow().awaitTermination(30, TimeUnit.SECONDS);
        server.shutdownNow().awaitTermination(30, TimeUnit.SECONDS);
        clientGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        serverGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
    }
}
