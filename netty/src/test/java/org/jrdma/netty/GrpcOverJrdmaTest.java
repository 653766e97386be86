package org.jrdma.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jrdma.RdmaConfig;
import org.jrdma.Transport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * gRPC-java's Netty transport (grpc-netty, unchanged, not shaded) over jrdma-netty: the builders get
 * jrdma's event loop group and channel classes, nothing else changes. Services are declared without
 * generated code (byte-array messages), as gRPC's own tests of the transport do.
 */
class GrpcOverJrdmaTest {
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
    private static final MethodDescriptor<byte[], byte[]> UNARY = method("Echo", MethodDescriptor.MethodType.UNARY);
    private static final MethodDescriptor<byte[], byte[]> CLIENT_STREAMING = method("Concat",
            MethodDescriptor.MethodType.CLIENT_STREAMING);
    private static final MethodDescriptor<byte[], byte[]> SERVER_STREAMING = method("Split",
            MethodDescriptor.MethodType.SERVER_STREAMING);
    private static final MethodDescriptor<byte[], byte[]> BIDI = method("EchoEach", MethodDescriptor.MethodType.BIDI_STREAMING);
    private static final MethodDescriptor<byte[], byte[]> NEVER = method("Never", MethodDescriptor.MethodType.UNARY);
    private static final int LARGE = 16 << 20;

    private final LoopGroups groups = new LoopGroups();
    private Server server;
    private ManagedChannel channel;
    private final CountDownLatch neverCancelled = new CountDownLatch(1);

    static List<Transport> transports() {
        return RdmaSocketTestPermutation.transports();
    }

    private static MethodDescriptor<byte[], byte[]> method(String name, MethodDescriptor.MethodType type) {
        return MethodDescriptor.<byte[], byte[]>newBuilder().setType(type).setFullMethodName("jrdma.Test/" + name)
                .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
    }

    private ServerServiceDefinition service() {
        return ServerServiceDefinition.builder("jrdma.Test")
                .addMethod(UNARY, ServerCalls.asyncUnaryCall((request, response) -> {
                    response.onNext(request);
                    response.onCompleted();
                }))
                .addMethod(CLIENT_STREAMING, ServerCalls.asyncClientStreamingCall(response -> new StreamObserver<byte[]>() {
                    private final java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();

                    @Override
                    public void onNext(byte[] part) {
                        all.writeBytes(part);
                    }

                    @Override
                    public void onError(Throwable t) {
                    }

                    @Override
                    public void onCompleted() {
                        response.onNext(all.toByteArray());
                        response.onCompleted();
                    }
                }))
                .addMethod(SERVER_STREAMING, ServerCalls.asyncServerStreamingCall((request, response) -> {
                    for (byte b : request) {
                        response.onNext(new byte[] {b});
                    }
                    response.onCompleted();
                }))
                .addMethod(BIDI, ServerCalls.asyncBidiStreamingCall(response -> new StreamObserver<byte[]>() {
                    @Override
                    public void onNext(byte[] value) {
                        response.onNext(value);
                    }

                    @Override
                    public void onError(Throwable t) {
                    }

                    @Override
                    public void onCompleted() {
                        response.onCompleted();
                    }
                }))
                .addMethod(NEVER, ServerCalls.asyncUnaryCall((request, response) -> {
                    // Answers nothing: the client's deadline or cancel ends the call, which the server sees.
                    ((io.grpc.stub.ServerCallStreamObserver<byte[]>) response).setOnCancelHandler(neverCancelled::countDown);
                }))
                .build();
    }

    /** A server and a channel to it over {@code transport}, each on an event loop group of jrdma's. */
    private ManagedChannel start(Transport transport) throws IOException {
        EventLoopGroup serverGroup = group(RdmaSocketTestPermutation.config(transport, "jrdma.netty.serverDevice"));
        EventLoopGroup clientGroup = group(RdmaSocketTestPermutation.config(transport, "jrdma.netty.clientDevice"));
        InetSocketAddress listen = (InetSocketAddress) RdmaSocketTestPermutation.newSocketAddress();
        server = NettyServerBuilder.forAddress(listen)
                .channelType(RdmaServerSocketChannel.class).bossEventLoopGroup(serverGroup).workerEventLoopGroup(serverGroup)
                .maxInboundMessageSize(2 * LARGE).addService(service()).build().start();
        int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
        channel = NettyChannelBuilder.forAddress(new InetSocketAddress(listen.getAddress(), port))
                .channelType(RdmaSocketChannel.class).eventLoopGroup(clientGroup).usePlaintext()
                .maxInboundMessageSize(2 * LARGE).build();
        return channel;
    }

    private EventLoopGroup group(RdmaConfig config) {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory(config));
        groups.add(group);
        return group;
    }

    @AfterEach
    void close() throws Exception {
        if (channel != null) {
            channel.shutdownNow().awaitTermination(30, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.shutdownNow().awaitTermination(30, TimeUnit.SECONDS);
        }
        groups.shutDown();
    }

    @ParameterizedTest
    @MethodSource("transports")
    void unary(Transport transport) throws Exception {
        ManagedChannel channel = start(transport);
        for (int i = 0; i < 100; i++) {
            byte[] request = ("request " + i).getBytes();
            assertArrayEquals(request, ClientCalls.blockingUnaryCall(channel, UNARY, CallOptions.DEFAULT, request));
        }
    }

    @ParameterizedTest
    @MethodSource("transports")
    void streamingInEachDirectionAndBoth(Transport transport) throws Exception {
        ManagedChannel channel = start(transport);
        CompletableFuture<byte[]> concatenated = new CompletableFuture<>();
        StreamObserver<byte[]> requests = ClientCalls.asyncClientStreamingCall(channel.newCall(CLIENT_STREAMING,
                CallOptions.DEFAULT), observer(concatenated, null));
        for (int i = 0; i < 200; i++) {
            requests.onNext(new byte[] {(byte) i});
        }
        requests.onCompleted();
        byte[] all = concatenated.get(30, TimeUnit.SECONDS);
        assertEquals(200, all.length);
        assertEquals((byte) 199, all[199]);

        Iterator<byte[]> parts = ClientCalls.blockingServerStreamingCall(channel, SERVER_STREAMING, CallOptions.DEFAULT,
                new byte[] {1, 2, 3, 4, 5});
        List<Byte> received = new ArrayList<>();
        parts.forEachRemaining(p -> received.add(p[0]));
        assertEquals(List.of((byte) 1, (byte) 2, (byte) 3, (byte) 4, (byte) 5), received);

        List<byte[]> echoed = new ArrayList<>();
        CompletableFuture<byte[]> done = new CompletableFuture<>();
        StreamObserver<byte[]> bidi = ClientCalls.asyncBidiStreamingCall(channel.newCall(BIDI, CallOptions.DEFAULT),
                observer(done, echoed));
        for (int i = 0; i < 300; i++) {
            bidi.onNext(new byte[] {(byte) i, (byte) (i >> 8)});
        }
        bidi.onCompleted();
        done.get(30, TimeUnit.SECONDS);
        assertEquals(300, echoed.size());
        assertEquals(299, (echoed.get(299)[0] & 0xff) | (echoed.get(299)[1] & 0xff) << 8);
    }

    @ParameterizedTest
    @MethodSource("transports")
    void sixteenMebibyteMessagesBothWays(Transport transport) throws Exception {
        ManagedChannel channel = start(transport);
        byte[] request = new byte[LARGE];
        new Random(42).nextBytes(request);
        assertArrayEquals(request, ClientCalls.blockingUnaryCall(channel, UNARY, CallOptions.DEFAULT, request));
    }

    @ParameterizedTest
    @MethodSource("transports")
    void deadlinesAndCancellationReachTheServer(Transport transport) throws Exception {
        ManagedChannel channel = start(transport);
        StatusRuntimeException late = assertThrows(StatusRuntimeException.class, () -> ClientCalls.blockingUnaryCall(
                channel, NEVER, CallOptions.DEFAULT.withDeadlineAfter(200, TimeUnit.MILLISECONDS), new byte[1]));
        assertEquals(Status.Code.DEADLINE_EXCEEDED, late.getStatus().getCode());
        assertTrue(neverCancelled.await(30, TimeUnit.SECONDS), "the server saw the call end");

        ClientCall<byte[], byte[]> call = channel.newCall(NEVER, CallOptions.DEFAULT);
        CompletableFuture<Status> closed = new CompletableFuture<>();
        call.start(new ClientCall.Listener<>() {
            @Override
            public void onClose(Status status, Metadata trailers) {
                closed.complete(status);
            }
        }, new Metadata());
        call.sendMessage(new byte[1]);
        call.halfClose();
        call.request(1);
        call.cancel("the caller changed its mind", null);
        assertEquals(Status.Code.CANCELLED, closed.get(30, TimeUnit.SECONDS).getCode());
    }

    @ParameterizedTest
    @MethodSource("transports")
    void aServerThatShutsDownIsUnavailable(Transport transport) throws Exception {
        ManagedChannel channel = start(transport);
        assertArrayEquals(new byte[] {7}, ClientCalls.blockingUnaryCall(channel, UNARY, CallOptions.DEFAULT, new byte[] {7}));
        server.shutdownNow().awaitTermination(30, TimeUnit.SECONDS);
        StatusRuntimeException gone = assertThrows(StatusRuntimeException.class,
                () -> ClientCalls.blockingUnaryCall(channel, UNARY, CallOptions.DEFAULT, new byte[] {8}));
        assertEquals(Status.Code.UNAVAILABLE, gone.getStatus().getCode(), gone.toString());
    }

    private static StreamObserver<byte[]> observer(CompletableFuture<byte[]> result, List<byte[]> each) {
        return new StreamObserver<>() {
            private byte[] last;

            @Override
            public void onNext(byte[] value) {
                last = value;
                if (each != null) {
                    each.add(value);
                }
            }

            @Override
            public void onError(Throwable t) {
                result.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
                result.complete(last);
            }
        };
    }
}
