package org.jrdma.bench;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.jrdma.PollMode;
import org.jrdma.RdmaClosedException;
import org.jrdma.RdmaContext;

/**
 * Waiting as a context's poll mode needs it: a caller-driven context ({@link PollMode#CALLER}) is
 * driven by the waiting thread until what it waits for is there — spinning on
 * {@code progress(0)}, one pass at a time, as perftest's threads spin on their completion queues;
 * a context with a loop thread of its own delivers while the waiting thread blocks.
 */
final class Driving {
    /**
     * The spins between two looks at the clock for a timeout: perftest's spin reads no clock, and under
     * emulation a clock read costs more than an empty pass of the context.
     */
    private static final int CLOCK_EVERY = 1024;

    private Driving() {
    }

    static boolean callerDriven(RdmaContext context) {
        return context.config().pollMode() == PollMode.CALLER;
    }

    static <T> T get(RdmaContext context, CompletableFuture<T> future, long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        if (callerDriven(context)) {
            spinUntil(context, future::isDone, timeout, unit);
        }
        return future.get(callerDriven(context) ? 0 : timeout, unit);
    }

    /** False when the timeout passed first. */
    static boolean await(RdmaContext context, CountDownLatch latch, long timeout, TimeUnit unit) throws InterruptedException {
        if (!callerDriven(context)) {
            return latch.await(timeout, unit);
        }
        spinUntil(context, () -> latch.getCount() == 0, timeout, unit);
        return latch.getCount() == 0;
    }

    /** Spins {@code progress(0)} until {@code done} or the timeout, which it looks at every CLOCK_EVERY spins. */
    private static void spinUntil(RdmaContext context, BooleanSupplier done, long timeout, TimeUnit unit) {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        for (int spins = 1; !done.getAsBoolean() && (spins % CLOCK_EVERY != 0 || System.nanoTime() - deadline < 0); spins++) {
            context.progress(0, TimeUnit.MILLISECONDS);
        }
    }

    /** One turn without waiting, between the iterations of a spinning test (completions reaped). */
    static void poll(RdmaContext context) {
        if (callerDriven(context)) {
            context.progress(0, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * A server's context: driven by a daemon thread of its own, spinning, until the context closes;
     * {@code eachPass} runs after every pass (the server's own spinning work, on the same thread).
     */
    static void inBackground(RdmaContext context, Runnable eachPass) {
        if (!callerDriven(context)) {
            return;
        }
        Thread driver = new Thread(() -> {
            try {
                for (;;) {
                    context.progress(0, TimeUnit.MILLISECONDS);
                    eachPass.run();
                }
            } catch (RdmaClosedException closed) {
                // the server is done
            }
        }, "bench-server-driver");
        driver.setDaemon(true);
        driver.start();
    }
}
