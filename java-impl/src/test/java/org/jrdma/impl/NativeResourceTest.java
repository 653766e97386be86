package org.jrdma.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.RdmaClosedException;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

class NativeResourceTest {
    static final class Counting extends NativeResource {
        final AtomicInteger frees = new AtomicInteger();

        @Override
        protected String describe() {
            return "test resource";
        }

        @Override
        protected void free() {
            frees.incrementAndGet();
        }
    }

    @Test
    void closeFreesOnceAndIsIdempotent() {
        Counting r = new Counting();
        assertTrue(r.markClosed());
        assertFalse(r.markClosed());
        assertEquals(1, r.frees.get());
        assertThrows(RdmaClosedException.class, r::acquire);
        assertThrows(RdmaClosedException.class, r::ensureOpen);
    }

    @Test
    void closeWhileInUseDefersTheFreeToTheLastRelease() {
        Counting r = new Counting();
        r.acquire();
        r.acquire();
        assertTrue(r.markClosed());
        assertEquals(0, r.frees.get(), "freed under a running operation");
        r.release();
        assertEquals(0, r.frees.get());
        r.release();
        assertEquals(1, r.frees.get());
    }

    @Test
    void releaseWithoutAcquireIsAnError() {
        Counting r = new Counting();
        assertThrows(IllegalStateException.class, r::release);
    }

    @RepeatedTest(20)
    void concurrentUseAndCloseFreeExactlyOnceAndNeverUnderAUse() throws Exception {
        Counting r = new Counting();
        int threads = 8;
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger freedWhileHeld = new AtomicInteger();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 10_000; i++) {
                    if (id == 0 && i == 5_000) {
                        r.markClosed();
                    }
                    try {
                        r.acquire();
                    } catch (RdmaClosedException closed) {
                        continue;
                    }
                    if (r.isFreed()) {
                        freedWhileHeld.incrementAndGet();
                    }
                    r.release();
                }
                r.markClosed(); // double close from every thread
            });
            workers.add(thread);
            thread.start();
        }
        start.countDown();
        for (Thread thread : workers) {
            thread.join();
        }
        assertEquals(1, r.frees.get());
        assertEquals(0, freedWhileHeld.get());
    }
}
