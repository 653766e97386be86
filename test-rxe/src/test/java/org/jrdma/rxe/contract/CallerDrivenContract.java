package org.jrdma.rxe.contract;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import javax.management.ObjectName;
import org.jrdma.ChannelHandler;
import org.jrdma.PollMode;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaClosedException;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaConfigBuilder;
import org.jrdma.RdmaContext;
import org.jrdma.RegisteredBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Contexts driven by the application's thread ({@link PollMode#CALLER}, {@link RdmaContext#progress}):
 * a ping-pong with one thread per side and every callback on it; one driver at a time; a wake-up
 * ends a wait; a close from another thread or from a callback ends the driving cleanly.
 */
public abstract class CallerDrivenContract {
    protected abstract Fabric fabric();

    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final AtomicBoolean stopServer = new AtomicBoolean();
    private final AtomicReference<Thread> serverDriver = new AtomicReference<>();

    @AfterEach
    void stopThreads() throws InterruptedException {
        stopServer.set(true);
        threads.shutdownNow();
        assertTrue(threads.awaitTermination(30, TimeUnit.SECONDS), "a driving thread did not stop");
    }

    private RdmaContext open(boolean server) {
        fabric().require();
        RdmaConfigBuilder config = RdmaConfig.builder().pollMode(PollMode.CALLER);
        return Rdma.open(server ? fabric().serverConfig(config) : fabric().clientConfig(config));
    }

    /** The server's own driving thread, until the test ends or the context closes. */
    private Future<?> drive(RdmaContext context) {
        return threads.submit(() -> {
            serverDriver.set(Thread.currentThread());
            while (!stopServer.get()) {
                try {
                    context.progress(50, TimeUnit.MILLISECONDS);
                } catch (RdmaClosedException closed) {
                    return null;
                }
            }
            return null;
        });
    }

    /** Drives {@code context} on this thread until {@code done} completed (30 s at most). */
    private static <T> T progressUntil(RdmaContext context, CompletableFuture<T> done) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!done.isDone() && System.nanoTime() < deadline) {
            context.progress(10, TimeUnit.MILLISECONDS);
        }
        return done.get(0, TimeUnit.SECONDS);
    }

    /** Echoes each message back from the callback, noting the thread it ran on. */
    private static ChannelHandler echo(RdmaContext server, AtomicReference<Thread> callbackThread) {
        return (channel, message) -> {
            callbackThread.set(Thread.currentThread());
            RegisteredBuffer out = server.allocate(message.length());
            out.buffer().put(message.payload());
            channel.send(out, 0, message.length()).whenComplete((ok, failed) -> out.close());
        };
    }

    @Test
    void aPingPongRunsOnOneThreadPerSideWithEveryCallbackOnIt() throws Exception {
        try (RdmaContext server = open(true); RdmaContext client = open(false)) {
            AtomicReference<Thread> serverCallbacks = new AtomicReference<>();
            InetSocketAddress address = fabric().nextAddress();
            server.listen(address, echo(server, serverCallbacks));
            Future<?> serverThread = drive(server);
            AtomicReference<CompletableFuture<byte[]>> reply = new AtomicReference<>();
            AtomicReference<Thread> clientCallbacks = new AtomicReference<>();
            ChannelHandler collect = (channel, message) -> {
                clientCallbacks.set(Thread.currentThread());
                byte[] bytes = new byte[message.length()];
                message.payload().get(bytes);
                reply.get().complete(bytes);
            };
            RdmaChannel channel = progressUntil(client,
                    client.connect(address, fabric().clientAddress(), collect));
            try (RegisteredBuffer out = client.allocate(64)) {
                for (int round = 0; round < 200; round++) {
                    byte[] sent = MessagingContract.pattern(64, round);
                    out.buffer().clear().put(sent);
                    reply.set(new CompletableFuture<>());
                    channel.send(out, 0, sent.length);
                    assertArrayEquals(sent, progressUntil(client, reply.get()), "round " + round);
                }
            }
            assertSame(Thread.currentThread(), clientCallbacks.get(), "the client's callbacks ran inside its progress");
            assertSame(serverDriver.get(), serverCallbacks.get(), "the server's callbacks ran on its driving thread");
            stopServer.set(true);
            serverThread.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void onlyOneThreadDrivesAtATimeAndNotFromItsOwnCallbacks() throws Exception {
        try (RdmaContext server = open(true); RdmaContext client = open(false)) {
            InetSocketAddress address = fabric().nextAddress();
            CountDownLatch inCallback = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicReference<Throwable> nested = new AtomicReference<>();
            server.listen(address, (channel, message) -> {
                try {
                    server.progress(0, TimeUnit.SECONDS);
                } catch (Throwable t) {
                    nested.set(t);
                }
                inCallback.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Future<?> serverThread = drive(server);
            RdmaChannel channel = progressUntil(client, client.connect(address, fabric().clientAddress(), (c, m) -> { }));
            try (RegisteredBuffer out = client.allocate(8)) {
                CompletableFuture<Void> sent = channel.send(out, 0, 8);
                progressUntil(client, sent);
                assertTrue(inCallback.await(30, TimeUnit.SECONDS), "the server's callback ran");
                IllegalStateException second = assertThrows(IllegalStateException.class,
                        () -> server.progress(0, TimeUnit.SECONDS), "a second driver while the first is inside");
                assertTrue(second.getMessage().contains("another thread"), second.getMessage());
                assertTrue(nested.get() instanceof IllegalStateException && nested.get().getMessage().contains("callback"),
                        "progress from its own callback: " + nested.get());
                release.countDown();
            }
            stopServer.set(true);
            serverThread.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aContextWithItsOwnLoopThreadIsNotDrivenByTheCaller() {
        fabric().require();
        try (RdmaContext own = Rdma.open(fabric().serverConfig(RdmaConfig.builder().pollMode(PollMode.ADAPTIVE)))) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> own.progress(0, TimeUnit.SECONDS));
            assertTrue(e.getMessage().contains("PollMode.CALLER"), e.getMessage());
        }
    }

    @Test
    void aWakeupEndsAWaitThatNothingElseWouldEnd() throws Exception {
        try (RdmaContext idle = open(true)) {
            Future<Integer> waiting = threads.submit(() -> idle.progress(10, TimeUnit.MINUTES));
            idle.wakeup(); // before or during the wait: the wake-up stays pending until a turn reads it
            assertEquals(0, waiting.get(30, TimeUnit.SECONDS), "woken, with nothing handled");
        }
    }

    @Test
    void aCloseFromAnotherThreadEndsTheDrivingAndACloseFromACallbackToo() throws Exception {
        RdmaContext watched = open(true);
        Future<Throwable> driver = threads.submit(() -> {
            try {
                for (;;) {
                    watched.progress(10, TimeUnit.MINUTES);
                }
            } catch (RdmaClosedException closed) {
                return closed;
            }
        });
        watched.close(); // wakes the driver and waits for it to leave native code
        assertTrue(driver.get(30, TimeUnit.SECONDS) instanceof RdmaClosedException);
        assertThrows(RdmaClosedException.class, () -> watched.progress(0, TimeUnit.SECONDS));

        try (RdmaContext server = open(true); RdmaContext client = open(false)) {
            InetSocketAddress address = fabric().nextAddress();
            CountDownLatch closedInCallback = new CountDownLatch(1);
            server.listen(address, (channel, message) -> {
                server.close(); // the last use goes on the driving thread: freed when progress returns
                closedInCallback.countDown();
            });
            Future<?> serverThread = drive(server);
            RdmaChannel channel = progressUntil(client, client.connect(address, fabric().clientAddress(), (c, m) -> { }));
            try (RegisteredBuffer out = client.allocate(8)) {
                progressUntil(client, channel.send(out, 0, 8));
            }
            assertTrue(closedInCallback.await(30, TimeUnit.SECONDS));
            serverThread.get(30, TimeUnit.SECONDS); // its next progress saw the close
            assertTrue(server.isClosed());
        }
    }

    /**
     * Idle pool slabs go back under a caller that only ever spins {@code progress(0)} (one pass, which reads no
     * clock): every 256th such pass looks for slabs that stayed empty for a second.
     */
    @Test
    void aCallerThatOnlySpinsGivesAnIdleSlabBack() throws Exception {
        Set<ObjectName> before = ContextBean.registered();
        try (RdmaContext spun = open(true)) {
            ContextBean bean = ContextBean.openedSince(before);
            int slab = 2 << 20;
            int block = 64 << 10;
            List<RegisteredBuffer> burst = new ArrayList<>();
            for (int i = 0; i < slab / block + 1; i++) {
                burst.add(spun.allocate(block));
            }
            assertEquals(2L * slab, bean.poolBytes(), "two slabs");
            burst.forEach(RegisteredBuffer::close);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            long bytes = 2L * slab;
            for (int pass = 1; bytes != slab && System.nanoTime() - deadline < 0; pass++) {
                spun.progress(0, TimeUnit.SECONDS);
                if (pass % 1024 == 0) {
                    bytes = bean.poolBytes();
                }
            }
            assertEquals(slab, bytes, "the emptied newer slab was given back; one stays");
        }
    }
}
