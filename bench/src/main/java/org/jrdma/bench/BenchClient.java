package org.jrdma.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;
import org.jrdma.Access;
import org.jrdma.ChannelHandler;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaMessage;
import org.jrdma.RegisteredBuffer;
import org.jrdma.RemoteBuffer;
import org.jrdma.Transport;

/**
 * The active side: one channel per test and size. Latency tests are driven from the event-loop
 * thread (each completion or echo posts the next operation), so no thread hand-off is timed;
 * write_lat spins on memory like perftest. Bandwidth tests keep a window of operations in flight.
 */
final class BenchClient {
    private final RdmaContext context;
    private final InetSocketAddress server;
    private final InetAddress local;
    private final BenchOptions options;
    private final PrintStream progress;
    private final AtomicLong completedReads = new AtomicLong();

    BenchClient(RdmaContext context, InetSocketAddress server, InetAddress local, BenchOptions options, PrintStream progress) {
        this.context = context;
        this.server = server;
        this.local = local;
        this.options = options;
        this.progress = progress;
    }

    /** Client state of one channel: the server's token, then what the test needs from messages. */
    private static final class Session implements ChannelHandler {
        final CompletableFuture<RemoteBuffer> serverBuffer = new CompletableFuture<>();
        volatile IntConsumer onEcho = n -> { };

        @Override
        public void onMessage(RdmaChannel channel, RdmaMessage message) {
            if (!serverBuffer.isDone()) {
                serverBuffer.complete(RemoteBuffer.fromBytes(message.payload()));
            } else {
                onEcho.accept(message.length());
            }
        }
    }

    Result run(String test, int size) throws Exception {
        return run(test, size, iterationsFor(test, size, options));
    }

    Result run(String test, int size, int iterations) throws Exception {
        // Untimed iterations first, at most as many as timed ones (a 1 MiB case need not move 200 MiB first).
        int warmup = Math.min(options.warmup, iterations);
        int total = warmup + iterations;
        Session session = new Session();
        RdmaChannel channel = Driving.get(context, context.connect(server, local, session), 60, TimeUnit.SECONDS);
        RegisteredBuffer buffer = context.allocate(Math.max(size, 64), Access.REMOTE_WRITE);
        try {
            new Control(BenchOptions.ALL_TESTS.indexOf(test), size, total, buffer.remote()).writeTo(buffer.buffer());
            Driving.get(context, channel.send(buffer, 0, Control.BYTES), 30, TimeUnit.SECONDS);
            RemoteBuffer remote = Driving.get(context, session.serverBuffer, 30, TimeUnit.SECONDS);
            switch (test) {
                case "send_lat": return sendLatency(channel, session, buffer, size, warmup, iterations);
                case "write_lat": return writeLatency(channel, buffer, remote, size, warmup, iterations);
                case "read_lat": return readLatency(channel, buffer, remote, size, warmup, iterations);
                case "send_bw": return sendBandwidth(channel, session, buffer, size, warmup, iterations);
                case "write_bw": return bandwidth(test, size, warmup, iterations, () -> channel.write(buffer, 0, remote, 0, size));
                case "read_bw": return bandwidth(test, size, warmup, iterations, () -> channel.read(remote, 0, buffer, 0, size));
                default: throw new IllegalArgumentException(test);
            }
        } finally {
            channel.close();
            Driving.get(context, channel.closeFuture(), 30, TimeUnit.SECONDS);
            buffer.close();
        }
    }

    /**
     * Iterations for a test at a size: the option's count, fewer for large messages so that one size
     * moves at most 16 MiB (latency) or 64 MiB (bandwidth), but never fewer than 50 / 100. The
     * comparison script gives perftest the same counts (bench/compare).
     */
    static int iterationsFor(String test, int size, BenchOptions options) {
        boolean latency = test.endsWith("_lat");
        return cappedIterations(latency ? options.latencyIterations : options.bandwidthIterations, size, latency);
    }

    static int cappedIterations(int asked, int size, boolean latency) {
        long budget = latency ? 16L << 20 : 64L << 20;
        int floor = latency ? 50 : 100;
        return (int) Math.min(asked, Math.max(floor, budget / size));
    }

    /** Echo ping-pong; one-way latency = round trip / 2 (as ib_send_lat). */
    private Result sendLatency(RdmaChannel channel, Session session, RegisteredBuffer buffer, int size, int warmup,
                               int iterations) throws InterruptedException {
        Histogram histogram = new Histogram(3);
        CountDownLatch done = new CountDownLatch(1);
        long[] start = new long[1];
        AtomicInteger remaining = new AtomicInteger(warmup + iterations);
        session.onEcho = length -> {
            long now = System.nanoTime();
            int left = remaining.decrementAndGet();
            if (left < iterations) {
                histogram.recordValue((now - start[0]) / 2);
            }
            if (left == 0) {
                done.countDown();
                return;
            }
            start[0] = System.nanoTime();
            channel.send(buffer, 0, size);
        };
        start[0] = System.nanoTime();
        channel.send(buffer, 0, size);
        await(done, "send_lat");
        return Result.latency("send_lat", size, histogram);
    }

    /** RDMA WRITE ping-pong, each side spinning on the last 8 bytes of its buffer (as ib_write_lat). */
    private Result writeLatency(RdmaChannel channel, RegisteredBuffer buffer, RemoteBuffer remote, int size, int warmup,
                                int iterations) {
        Histogram histogram = new Histogram(3);
        int length = Math.max(size, 8);
        int last = length - 8;
        RegisteredBuffer out = context.allocate(length);
        Runnable every64 = context.transport() == Transport.VERBS ? null
                : Driving.callerDriven(context) ? () -> Driving.poll(context) : Thread::yield;
        try {
            for (int i = 1; i <= warmup + iterations; i++) {
                MemoryPoller.put(out.buffer(), last, i);
                long start = System.nanoTime();
                channel.write(out, 0, remote, 0, length);
                if (!MemoryPoller.await(buffer.buffer(), last, i, System.nanoTime() + TimeUnit.SECONDS.toNanos(30),
                        every64)) {
                    throw new IllegalStateException("write_lat: the echo of iteration " + i + " never arrived");
                }
                if (i > warmup) {
                    histogram.recordValue((System.nanoTime() - start) / 2);
                }
                Driving.poll(context); // caller-driven: this thread reaps its WRITEs' completions, untimed
            }
        } finally {
            out.close();
        }
        return Result.latency("write_lat", size, histogram);
    }

    /** One READ at a time; the full round trip (as ib_read_lat). */
    private Result readLatency(RdmaChannel channel, RegisteredBuffer buffer, RemoteBuffer remote, int size, int warmup,
                               int iterations) throws InterruptedException {
        Histogram histogram = new Histogram(3);
        CountDownLatch done = new CountDownLatch(1);
        int total = warmup + iterations;
        // Each completion posts the next READ, through CallbackChain (a READ may complete before its
        // callback is attached; see there).
        BiConsumer<Object, Throwable> next = new BiConsumer<>() {
            int count;
            long start = System.nanoTime();
            final Runnable postRead = () -> {
                start = System.nanoTime();
                try {
                    channel.read(remote, 0, buffer, 0, size).whenComplete(this);
                } catch (RuntimeException e) {
                    progress.println("read_lat: posting read " + count + " failed: " + e);
                    done.countDown();
                }
            };

            @Override
            public void accept(Object ignored, Throwable failure) {
                long now = System.nanoTime();
                completedReads.incrementAndGet();
                if (failure != null) {
                    progress.println("read_lat failed: " + failure);
                    done.countDown();
                    return;
                }
                if (count++ >= warmup) {
                    histogram.recordValue(now - start);
                }
                if (count == total) {
                    done.countDown();
                    return;
                }
                CallbackChain.post(postRead);
            }
        };
        channel.read(remote, 0, buffer, 0, size).whenComplete(next);
        if (!Driving.await(context, done, 30, TimeUnit.SECONDS)) {
            throw new IllegalStateException(diagnoseStuckRead(channel, remote, buffer, done, histogram.getTotalCount()));
        }
        return Result.latency("read_lat", size, histogram);
    }

    /** Sends with a window in flight; the time runs until the server reports that all have arrived. */
    private Result sendBandwidth(RdmaChannel channel, Session session, RegisteredBuffer buffer, int size, int warmup,
                                 int iterations) throws InterruptedException {
        CountDownLatch allArrived = new CountDownLatch(1);
        session.onEcho = length -> allArrived.countDown(); // the server answers after warmup + iterations messages
        window("send_bw", warmup, () -> channel.send(buffer, 0, size));
        long start = System.nanoTime();
        window("send_bw", iterations, () -> channel.send(buffer, 0, size));
        await(allArrived, "send_bw");
        return Result.bandwidth("send_bw", size, iterations, System.nanoTime() - start);
    }

    /**
     * Runs {@code warmup} untimed iterations, then keeps the window full until all iterations completed;
     * the time runs from the first timed post to the last completion.
     */
    private Result bandwidth(String test, int size, int warmup, int iterations,
                             Supplier<CompletableFuture<Void>> post) throws InterruptedException {
        window(test, warmup, post);
        long start = System.nanoTime();
        window(test, iterations, post);
        return Result.bandwidth(test, size, iterations, System.nanoTime() - start);
    }

    /** Keeps the window full until {@code iterations} operations completed. */
    private void window(String test, int iterations, Supplier<CompletableFuture<Void>> post)
            throws InterruptedException {
        if (iterations == 0) {
            return;
        }
        CountDownLatch done = new CountDownLatch(1);
        AtomicInteger posted = new AtomicInteger();
        AtomicInteger completed = new AtomicInteger();
        Throwable[] failure = new Throwable[1];
        BiConsumer<Void, Throwable> onComplete = new BiConsumer<>() {
            final Runnable postNext = () -> post.get().whenComplete(this);

            @Override
            public void accept(Void ignored, Throwable error) {
                if (error != null && failure[0] == null) {
                    failure[0] = error;
                    done.countDown();
                    return;
                }
                if (completed.incrementAndGet() == iterations) {
                    done.countDown();
                } else if (posted.incrementAndGet() <= iterations) {
                    CallbackChain.post(postNext);
                }
            }
        };
        int window = Math.min(options.window, iterations);
        posted.set(window);
        for (int i = 0; i < window; i++) {
            post.get().whenComplete(onComplete);
        }
        await(done, test);
        if (failure[0] != null) {
            throw new IllegalStateException(test + " failed", failure[0]);
        }
    }

    /**
     * A READ of the chain has not completed for 30 s (an open issue in event mode on rxe, see
     * docs/performance.md). Records the queue pairs' PSNs, then posts a second READ on the same queue
     * pair: if the stuck one completes with it, the device had stopped working on the send queue
     * until the next doorbell; if not, the request itself is lost.
     */
    private String diagnoseStuckRead(RdmaChannel channel, RemoteBuffer remote, RegisteredBuffer buffer, CountDownLatch done,
                                     long completed) throws InterruptedException {
        String before = queuePairs();
        String counters = deviceCounters();
        String state = channel.toString();
        long completedBeforeProbe = completedReads.get();
        CompletableFuture<Void> probe = channel.read(remote, 0, buffer, 0, 8);
        boolean probeDone;
        try {
            Driving.get(context, probe, 10, TimeUnit.SECONDS);
            probeDone = true;
        } catch (ExecutionException | TimeoutException e) {
            probeDone = false;
        }
        boolean finished = Driving.await(context, done, 10, TimeUnit.SECONDS);
        long afterProbe = completedReads.get() - completedBeforeProbe;
        return "read_lat: a READ did not complete within 30 s after " + completed + " reads; channel: " + state
                + "; a second READ posted then " + (probeDone ? "completed" : "did not complete either") + ", and "
                + (afterProbe > 0 ? "the stuck one completed with it (" + afterProbe + " more reads of the chain completed"
                        + (finished ? ", the chain finished)" : " before it stalled again)") : "the stuck one stayed pending")
                + "; channel now: " + channel + ". Queue pairs before the probe: " + before + "; after: " + queuePairs()
                + "; device counters: " + counters;
    }

    /** `rdma resource show qp` for RC queue pairs (state and PSNs), or why not. */
    private static String queuePairs() {
        try {
            Process p = new ProcessBuilder("rdma", "resource", "show", "qp").redirectErrorStream(true).start();
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(5, TimeUnit.SECONDS);
            return text.lines().filter(l -> l.contains("type RC")).map(String::trim)
                    .collect(Collectors.joining(" | ", "[", "]"));
        } catch (IOException | InterruptedException e) {
            return "unavailable (" + e + ")";
        }
    }

    /** The device's hardware counters (rxe has them in sysfs), for the diagnosis of a stuck test. */
    private String deviceCounters() {
        Path dir = Path.of("/sys/class/infiniband", context.device().name(), "ports",
                String.valueOf(context.port().number()), "hw_counters");
        StringBuilder text = new StringBuilder();
        try (var files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files.sorted()::iterator) {
                String value = Files.readString(f).trim();
                if (!value.equals("0")) {
                    text.append(f.getFileName()).append('=').append(value).append(' ');
                }
            }
        } catch (IOException | RuntimeException e) {
            return "unavailable (" + e + ")";
        }
        return text.toString().trim();
    }

    private void await(CountDownLatch latch, String test) throws InterruptedException {
        if (!Driving.await(context, latch, 120, TimeUnit.SECONDS)) {
            throw new IllegalStateException(test + " did not finish within 120 s");
        }
    }
}
