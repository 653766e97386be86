package org.jrdma.rxe.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jrdma.Access;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaClosedException;
import org.jrdma.RdmaOperationException;
import org.jrdma.RegisteredBuffer;
import org.jrdma.RemoteBuffer;
import org.jrdma.rxe.contract.Endpoints;
import org.jrdma.rxe.contract.MessagingContract;
import org.junit.jupiter.api.Test;

/**
 * Operations posted from the event-loop thread (completion callbacks) go out in one batch at the end
 * of the loop's batch, and only some of them ask for a completion (selective signaling). Every
 * future must still complete exactly once, in posting order, with the right result — also when a
 * request in the middle of a batch fails.
 */
class BatchedPostingTest {
    private static final int WRITES = 100;
    private static final int ADDS = 10;

    @Test
    void operationsPostedFromACallbackCompleteInOrderWithTheirResults() throws Exception {
        try (Endpoints e = new Endpoints()) {
            InetSocketAddress address = Endpoints.nextAddress();
            RegisteredBuffer exposed = e.server.allocate(64 * 1024, Access.REMOTE_READ, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC);
            e.listen(address, new OneSidedTest.Exposing(exposed));
            RdmaChannel channel = e.connect(address, (ch, m) -> { });
            RemoteBuffer remote = exposed.remote();
            RegisteredBuffer local = e.client.allocate(64 * 1024);
            for (int i = 0; i < WRITES; i++) {
                local.buffer().put(i * 64, MessagingContract.pattern(64, i));
            }
            RegisteredBuffer readBack = e.client.allocate(WRITES * 64);
            ConcurrentLinkedQueue<Integer> order = new ConcurrentLinkedQueue<>();
            List<CompletableFuture<Long>> adds = new ArrayList<>();
            CompletableFuture<Void> all = new CompletableFuture<>();
            // The first write is posted from this thread; everything else from its completion callback.
            channel.write(local, 0, remote, 60_000, 8).whenComplete((v, failure) -> {
                List<CompletableFuture<?>> posted = new ArrayList<>();
                for (int i = 0; i < WRITES; i++) {
                    int index = posted.size();
                    posted.add(channel.write(local, i * 64, remote, i * 64, 64).whenComplete((r, f) -> order.add(index)));
                }
                for (int i = 0; i < ADDS; i++) {
                    int index = posted.size();
                    CompletableFuture<Long> add = channel.fetchAndAdd(remote, 32_768, 1);
                    adds.add(add);
                    posted.add(add.whenComplete((r, f) -> order.add(index)));
                }
                int index = posted.size();
                posted.add(channel.read(remote, 0, readBack, 0, WRITES * 64).whenComplete((r, f) -> order.add(index)));
                CompletableFuture.allOf(posted.toArray(new CompletableFuture<?>[0])).whenComplete((r, f) -> {
                    if (f != null) {
                        all.completeExceptionally(f);
                    } else {
                        all.complete(null);
                    }
                });
            });
            all.get(30, TimeUnit.SECONDS);
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < WRITES + ADDS + 1; i++) {
                expected.add(i);
            }
            assertEquals(expected, new ArrayList<>(order), "completion order = posting order");
            for (int i = 0; i < ADDS; i++) {
                assertEquals(i, adds.get(i).get(), "fetch-and-add " + i + " returns the value before it");
            }
            assertEquals(ADDS, exposed.buffer().order(ByteOrder.nativeOrder()).getLong(32_768));
            for (int i = 0; i < WRITES; i++) {
                byte[] landed = new byte[64];
                readBack.buffer().get(i * 64, landed);
                assertArrayEquals(MessagingContract.pattern(64, i), landed, "write " + i + " read back");
            }
            assertTrue(channel.isOpen());
        }
    }

    @Test
    void aFailedRequestInABatchFailsItAndEverythingPostedAfterIt() throws Exception {
        try (Endpoints e = new Endpoints()) {
            InetSocketAddress address = Endpoints.nextAddress();
            RegisteredBuffer exposed = e.server.allocate(4096, Access.REMOTE_WRITE);
            RegisteredBuffer revoked = e.server.register(ByteBuffer.allocateDirect(4096), Access.REMOTE_WRITE);
            e.listen(address, new OneSidedTest.Exposing(exposed));
            RdmaChannel channel = e.connect(address, (ch, m) -> { });
            RemoteBuffer good = exposed.remote();
            RemoteBuffer bad = revoked.remote();
            revoked.close();
            RegisteredBuffer local = e.client.allocate(4096);
            List<CompletableFuture<Void>> posted = new ArrayList<>();
            CompletableFuture<Void> started = new CompletableFuture<>();
            channel.write(local, 0, good, 0, 8).whenComplete((v, failure) -> {
                for (int i = 0; i < 11; i++) {
                    posted.add(channel.write(local, 0, i == 5 ? bad : good, 64L * (i % 5), 64));
                }
                started.complete(null);
            });
            started.get(10, TimeUnit.SECONDS);
            for (int i = 0; i < 5; i++) {
                posted.get(i).get(10, TimeUnit.SECONDS); // done before the bad one: they succeeded
            }
            Throwable badFailure = failure(posted.get(5));
            RdmaOperationException cause = assertInstanceOf(RdmaOperationException.class, badFailure);
            assertEquals(10, cause.status(), "IBV_WC_REM_ACCESS_ERR: " + cause.getMessage());
            for (int i = 6; i < 11; i++) {
                Throwable after = failure(posted.get(i));
                assertTrue(after instanceof RdmaOperationException || after instanceof RdmaClosedException,
                        "write " + i + " after the failed one: " + after);
            }
            assertEquals(cause, channel.closeFuture().get(10, TimeUnit.SECONDS));
        }
    }

    private static Throwable failure(CompletableFuture<?> future) throws Exception {
        try {
            future.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException expected) {
            return expected.getCause();
        }
        throw new AssertionError("the operation succeeded but should have failed");
    }
}
