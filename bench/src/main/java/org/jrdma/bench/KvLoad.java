package org.jrdma.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One cell of the push/pull benchmark: {@code n} requests from each of several issuers at once (one
 * thread each, a window of requests in flight), what they moved together and how long each request
 * took from its issue until the issuer saw it complete (the oldest first, as ps-lite's Wait).
 */
final class KvLoad {
    /** What an issuer does: starts request {@code i} and returns a handle that {@link #complete} waits for. */
    interface Issuer {
        long issue(int i) throws Exception;

        void complete(long handle) throws Exception;
    }

    /** A cell's outcome: aggregate MiB/s and the requests' latencies (sorted, nanoseconds). */
    record Outcome(double mibPerSecond, long[] sortedNanos) {
        double p50Micros() {
            return sortedNanos[sortedNanos.length / 2] / 1000.0;
        }

        double p99Micros() {
            return sortedNanos[Math.min(sortedNanos.length - 1, (int) (sortedNanos.length * 0.99))] / 1000.0;
        }
    }

    private KvLoad() {
    }

    /**
     * Runs {@code n} requests of {@code bytes} on each issuer, {@code window} in flight per issuer, all
     * issuers starting together.
     */
    static Outcome run(List<Issuer> issuers, int n, int window, long bytes) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        AtomicLong first = new AtomicLong(Long.MAX_VALUE);
        AtomicLong last = new AtomicLong();
        List<CompletableFuture<long[]>> results = new ArrayList<>();
        for (Issuer issuer : issuers) {
            CompletableFuture<long[]> result = new CompletableFuture<>();
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                    long begin = System.nanoTime();
                    first.accumulateAndGet(begin, Math::min);
                    long[] nanos = drive(issuer, n, window);
                    last.accumulateAndGet(System.nanoTime(), Math::max);
                    result.complete(nanos);
                } catch (Throwable t) {
                    result.completeExceptionally(t);
                }
            }, "kv-bench-issuer");
            thread.setDaemon(true);
            thread.start();
            results.add(result);
        }
        start.countDown();
        long[] all = new long[0];
        for (CompletableFuture<long[]> result : results) {
            long[] nanos;
            try {
                nanos = result.get(10, TimeUnit.MINUTES);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception x ? x : e;
            }
            int at = all.length;
            all = Arrays.copyOf(all, at + nanos.length);
            System.arraycopy(nanos, 0, all, at, nanos.length);
        }
        Arrays.sort(all);
        double seconds = (last.get() - first.get()) / 1e9;
        return new Outcome(issuers.size() * (double) n * bytes / (1024.0 * 1024.0) / seconds, all);
    }

    /** Request i's handle sits at i % window until it completed: the window is first in, first out. */
    private static long[] drive(Issuer issuer, int n, int window) throws Exception {
        long[] nanos = new long[n];
        long[] handles = new long[window];
        for (int i = 0; i < n; i++) {
            if (i >= window) {
                finish(issuer, i - window, handles, nanos);
            }
            nanos[i] = System.nanoTime();
            handles[i % window] = issuer.issue(i);
        }
        for (int j = Math.max(0, n - window); j < n; j++) {
            finish(issuer, j, handles, nanos);
        }
        return nanos;
    }

    /** nanos[j] held request j's issue time; it becomes its latency. */
    private static void finish(Issuer issuer, int j, long[] handles, long[] nanos) throws Exception {
        issuer.complete(handles[j % handles.length]);
        nanos[j] = System.nanoTime() - nanos[j];
    }
}
