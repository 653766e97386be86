package org.jrdma.rxe.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.AuthenticationException;
import org.jrdma.ChannelHandler;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaMessage;
import org.jrdma.RegisteredBuffer;
import org.junit.jupiter.api.Test;

/**
 * Mutual authentication with a pre-shared key over real connections: the same key gives a working
 * channel; a different key, or a key on one side only, gives no channel on either side and a typed
 * exception on the client naming why.
 */
public abstract class AuthenticationContract {
    /** {@return what this run of the contract goes over} */
    protected abstract Fabric fabric();

    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] OTHER = "fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.US_ASCII);

    /** A server context with {@code serverKey}, a client context with {@code clientKey} (null: none). */
    private final class Pair implements AutoCloseable {
        final RdmaContext server;
        final RdmaContext client;
        final InetSocketAddress address = fabric().nextAddress();
        final AtomicInteger serverOpened = new AtomicInteger();
        final BlockingQueue<String> serverReceived = new ArrayBlockingQueue<>(4);

        Pair(byte[] serverKey, byte[] clientKey) {
            fabric().require();
            server = Rdma.open(fabric().serverConfig(RdmaConfig.builder().preSharedKey(serverKey)));
            client = Rdma.open(fabric().clientConfig(RdmaConfig.builder().preSharedKey(clientKey).connectTimeoutMillis(3000)));
            server.listen(address, new ChannelHandler() {
                @Override
                public void onOpen(RdmaChannel channel) {
                    serverOpened.incrementAndGet();
                }

                @Override
                public void onMessage(RdmaChannel channel, RdmaMessage message) {
                    byte[] bytes = new byte[message.length()];
                    message.payload().get(bytes);
                    serverReceived.add(new String(bytes, StandardCharsets.US_ASCII));
                }
            });
        }

        Throwable connectFailure() {
            return assertThrows(ExecutionException.class,
                    () -> connect().get(30, TimeUnit.SECONDS)).getCause();
        }

        CompletableFuture<RdmaChannel> connect() {
            return client.connect(address, fabric().clientAddress(), (ch, m) -> { });
        }

        @Override
        public void close() {
            client.close();
            server.close();
        }
    }

    @Test
    void theSameKeyOnBothSidesGivesAWorkingChannel() throws Exception {
        try (Pair p = new Pair(KEY, KEY)) {
            RdmaChannel channel = p.connect().get(30, TimeUnit.SECONDS);
            RegisteredBuffer out = p.client.allocate(64);
            out.buffer().put("proven".getBytes(StandardCharsets.US_ASCII));
            channel.send(out, 0, 6).get(30, TimeUnit.SECONDS);
            assertEquals("proven", p.serverReceived.poll(30, TimeUnit.SECONDS));
            assertEquals(1, p.serverOpened.get());
        }
    }

    @Test
    void differentKeysGiveNoChannelOnEitherSide() throws Exception {
        try (Pair p = new Pair(KEY, OTHER)) {
            AuthenticationException e = assertInstanceOf(AuthenticationException.class, p.connectFailure());
            assertTrue(e.getMessage().contains("keys differ"), e.getMessage());
            // The server closed its side without opening it for the application.
            new CountDownLatch(1).await(500, TimeUnit.MILLISECONDS);
            assertEquals(0, p.serverOpened.get());
            assertEquals(0, p.serverReceived.size());
        }
    }

    @Test
    void aKeyOnOneSideOnlyIsRefusedEitherWay() throws Exception {
        try (Pair p = new Pair(KEY, null)) {
            AuthenticationException e = assertInstanceOf(AuthenticationException.class, p.connectFailure());
            assertTrue(e.getMessage().contains("server requires authentication"), e.getMessage());
        }
        try (Pair p = new Pair(null, KEY)) {
            AuthenticationException e = assertInstanceOf(AuthenticationException.class, p.connectFailure());
            assertTrue(e.getMessage().contains("no pre-shared key"), e.getMessage());
            assertEquals(0, p.serverOpened.get());
        }
    }
}
