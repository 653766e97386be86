package org.jrdma.rxe.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jrdma.Access;
import org.jrdma.AddressResolutionException;
import org.jrdma.ChannelHandler;
import org.jrdma.ConnectTimeoutException;
import org.jrdma.ConnectionException;
import org.jrdma.ConnectionRefusedException;
import org.jrdma.ConnectionRejectedException;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaClosedException;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaMessage;
import org.jrdma.RegisteredBuffer;
import org.junit.jupiter.api.Test;

/** Connection failures are typed; closes with operations in flight never hang; a peer leaving is reported. */
public abstract class ChannelFailureContract {
    /** {@return what this run of the contract goes over} */
    protected abstract Fabric fabric();

    @Test
    void nobodyListeningIsConnectionRefused() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> e.client.connect(e.address(), e.clientAddress, (ch, m) -> { }).get(30, TimeUnit.SECONDS));
            assertInstanceOf(ConnectionRefusedException.class, failed.getCause(), failed.getCause().toString());
        }
    }

    @Test
    void anAddressWithoutRouteIsAnAddressOrTimeoutError() throws Exception {
        try (Endpoints e = new Endpoints(fabric(), RdmaConfig.builder().connectTimeoutMillis(1000))) {
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> e.client.connect(new InetSocketAddress("10.99.99.99", 7000), e.clientAddress, (ch, m) -> { })
                            .get(30, TimeUnit.SECONDS));
            Throwable cause = failed.getCause();
            assertTrue(cause instanceof AddressResolutionException || cause instanceof ConnectTimeoutException,
                    cause.toString());
        }
    }

    @Test
    void eagerSizeMismatchIsRejectedWithTheReasonOnBothSides() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            InetSocketAddress address = e.address();
            CompletableFuture<ConnectionRejectedException> serverSaw = new CompletableFuture<>();
            e.listen(address, new ChannelHandler() {
                @Override
                public void onMessage(RdmaChannel channel, RdmaMessage message) {
                }

                @Override
                public void onRejected(ConnectionRejectedException rejection) {
                    serverSaw.complete(rejection);
                }
            });
            try (RdmaContext bigEager = Rdma.open(fabric().clientConfig(RdmaConfig.builder().eagerSize(8192)))) {
                ExecutionException failed = assertThrows(ExecutionException.class,
                        () -> bigEager.connect(address, e.clientAddress, (ch, m) -> { }).get(30, TimeUnit.SECONDS));
                ConnectionRejectedException client = assertInstanceOf(ConnectionRejectedException.class, failed.getCause());
                assertEquals("eager buffer size mismatch", client.reason());
                assertTrue(client.getMessage().contains("the peer's eager size is 4096"), client.getMessage());
                ConnectionRejectedException server = serverSaw.get(10, TimeUnit.SECONDS);
                assertEquals("eager buffer size mismatch", server.reason());
                assertTrue(server.getMessage().contains("the client's eager size is 8192"), server.getMessage());
            }
        }
    }

    @Test
    void closeWithOperationsInFlightCompletesOrFailsEveryOne() throws Exception {
        // 600 operations (19 MB) in a burst; over emulated verbs Fabric raises the ACK timeout so that a
        // slow responder does not end the channel with RETRY_EXC_ERR, which is not what this is about.
        try (Endpoints e = new Endpoints(fabric())) {
            InetSocketAddress address = e.address();
            RegisteredBuffer exposed = e.server.allocate(1 << 20, Access.REMOTE_WRITE);
            e.listen(address, (ch, m) -> { });
            for (int round = 0; round < 5; round++) {
                RdmaChannel channel = e.connect(address, (ch, m) -> { });
                RegisteredBuffer local = e.client.allocate(64 * 1024);
                List<CompletableFuture<?>> ops = new ArrayList<>();
                for (int i = 0; i < 300; i++) { // more than the queue depth: some wait in the queue
                    ops.add(channel.write(local, 0, exposed.remote(), 0, 64 * 1024));
                    ops.add(channel.send(local, 0, 100));
                }
                channel.close();
                channel.close(); // idempotent
                int completed = 0;
                int failed = 0;
                for (CompletableFuture<?> op : ops) {
                    try {
                        op.get(30, TimeUnit.SECONDS);
                        completed++;
                    } catch (ExecutionException ex) {
                        assertInstanceOf(RdmaClosedException.class, ex.getCause(), ex.getCause().toString());
                        failed++;
                    }
                }
                assertEquals(ops.size(), completed + failed);
                channel.closeFuture().get(30, TimeUnit.SECONDS);
                ExecutionException after = assertThrows(ExecutionException.class, () -> channel.send(local, 0, 1).get(5, TimeUnit.SECONDS));
                assertInstanceOf(RdmaClosedException.class, after.getCause());
                local.close();
            }
        }
    }

    @Test
    void aPeerThatDisconnectsIsReportedAndPendingWorkFails() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            InetSocketAddress address = e.address();
            CompletableFuture<RdmaChannel> serverSide = new CompletableFuture<>();
            e.listen(address, new ChannelHandler() {
                @Override
                public void onOpen(RdmaChannel channel) {
                    serverSide.complete(channel);
                }

                @Override
                public void onMessage(RdmaChannel channel, RdmaMessage message) {
                }
            });
            CompletableFuture<Throwable> clientSawClose = new CompletableFuture<>();
            RdmaChannel client = e.connect(address, new ChannelHandler() {
                @Override
                public void onMessage(RdmaChannel channel, RdmaMessage message) {
                }

                @Override
                public void onClose(RdmaChannel channel, Throwable cause) {
                    clientSawClose.complete(cause);
                }
            });
            serverSide.get(10, TimeUnit.SECONDS).close();
            Throwable cause = clientSawClose.get(30, TimeUnit.SECONDS);
            assertNotNull(cause);
            assertTrue(cause.getMessage().contains("disconnected"), cause.getMessage());
            RegisteredBuffer local = e.client.allocate(64);
            ExecutionException after = assertThrows(ExecutionException.class, () -> client.send(local, 0, 1).get(5, TimeUnit.SECONDS));
            assertInstanceOf(RdmaClosedException.class, after.getCause());
        }
    }

    @Test
    void closingTheContextClosesItsChannelsAndServers() throws Exception {
        Endpoints e = new Endpoints(fabric());
        InetSocketAddress address = e.address();
        e.listen(address, (ch, m) -> { });
        RdmaChannel channel = e.connect(address, (ch, m) -> { });
        e.client.close();
        assertTrue(channel.closeFuture().get(10, TimeUnit.SECONDS) instanceof RdmaClosedException);
        e.server.close();
        assertInstanceOf(ConnectionException.class, assertThrows(ExecutionException.class, () -> {
            try (RdmaContext again = Rdma.open(fabric().clientConfig(RdmaConfig.builder()))) {
                again.connect(address, e.clientAddress, (ch, m) -> { }).get(30, TimeUnit.SECONDS);
            }
        }).getCause(), "the server is gone: refused");
    }

    @Test
    void settingAHandlerAfterTheContextClosedTouchesNothingNative() throws Exception {
        // setHandler from an application thread wakes the event loop; after the context's close that
        // used to write to the freed native context (an eventfd number read from freed memory).
        try (Endpoints e = new Endpoints(fabric())) {
            InetSocketAddress address = e.address();
            e.listen(address, (ch, m) -> { });
            for (int round = 0; round < 20; round++) {
                RdmaContext client = Rdma.open(fabric().clientConfig(RdmaConfig.builder()));
                RdmaChannel channel = client.connect(address, e.clientAddress, (ch, m) -> { }).get(30, TimeUnit.SECONDS);
                Thread closer = new Thread(client::close);
                closer.start();
                while (closer.isAlive()) {
                    channel.setHandler((ch, m) -> { }); // racing with the close: never throws, never crashes
                }
                closer.join();
                channel.setHandler((ch, m) -> { }); // after it: the native context is gone
                assertTrue(client.isClosed());
                assertTrue(channel.closeFuture().get(10, TimeUnit.SECONDS) instanceof RdmaClosedException);
            }
        }
    }
}
