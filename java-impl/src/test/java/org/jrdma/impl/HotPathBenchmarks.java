package org.jrdma.impl;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import org.jrdma.Rdma;
import org.jrdma.RemoteBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * JMH micro-benchmarks of the Java side of the hot paths, runnable without a device:
 * {@code java -jar bench/target/jrdma-bench.jar jmh HotPathBenchmarks}. They sit beside the
 * package-private classes they measure (java-impl's test sources); the jar java-impl attaches with
 * classifier {@code jmh} carries them into the bench tool.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class HotPathBenchmarks {
    private NativeResource resource;
    private EventRecords records;
    private ByteBuffer raw;
    private RemoteBuffer token;
    private Submissions submissions;
    private ChannelOp op;
    private final ContextCounters errors = new ContextCounters("rxe0", List::of, Map::of, () -> 0, () -> 0, () -> 0L);

    @Setup
    public void setUp() {
        if (!Rdma.isAvailable()) { // loads libjrdma (address0 is native)
            throw new IllegalStateException("libjrdma not available", Rdma.unavailabilityCause());
        }
        resource = new NativeResource() {
            @Override
            protected String describe() {
                return "benchmark resource";
            }

            @Override
            protected void free() {
            }
        };
        records = new EventRecords(EventLoop.BATCH);
        raw = ByteBuffer.allocateDirect(EventLoop.BATCH * EventRecords.RECORD_BYTES).order(ByteOrder.nativeOrder());
        token = new RemoteBuffer(1 << 20, 1 << 20, 42);
        submissions = new Submissions(64);
        op = new ChannelOp(ChannelOp.Kind.SEND, null, 0, 64, 0, 0, 0, 0, 0);
    }

    /** The use count every operation takes and gives back on its buffer. */
    @Benchmark
    public void acquireRelease() {
        resource.acquire();
        resource.release();
    }

    /** Reading one full batch of completion records in place (what the loop does per JNI return). */
    @Benchmark
    @OperationsPerInvocation(EventLoop.BATCH)
    public void readBatchOfRecords(Blackhole hole) {
        for (int i = 0; i < EventLoop.BATCH; i++) {
            hole.consume(records.kind(i));
            hole.consume(records.key(i));
            hole.consume(records.opSeq(i));
            hole.consume(records.opStatus(i));
            hole.consume(records.opResult(i));
        }
    }

    /** The one allocation per operation: the operation object that is also its future. */
    @Benchmark
    public Object newOperation() {
        return new ChannelOp(ChannelOp.Kind.WRITE, null, 0, 64, 4096, 1, 0, 0, 0);
    }

    /** Writing the submission records of a 64-operation batch (what one JNI call hands to the engine). */
    @Benchmark
    @OperationsPerInvocation(64)
    public void encodeBatchOfSubmissions() {
        for (int i = 0; i < 64; i++) {
            op.seq = i;
            submissions.addOperation(op, 0x1000, 7);
        }
        submissions.clear();
    }

    /** Local bounds check before a one-sided operation. */
    @Benchmark
    public void checkRemoteRange() {
        token.checkRange(4096, 512);
    }

    /**
     * What every submission pays for the slow-operation JFR event while no recording watches for it
     * (the default): one check of JFR's flag, nothing allocated.
     */
    @Benchmark
    public Object slowOperationEventOff() {
        return ChannelEvents.operationStarted("rxe0", "peer", "SEND", 64);
    }

    /** A JFR recording watching for slow operations (threshold 20 ms: nothing slower happens here). */
    @State(Scope.Benchmark)
    public static class SlowOperationRecording {
        Recording recording;

        @Setup
        public void start() {
            recording = new Recording();
            recording.enable("org.jrdma.SlowOperation").withThreshold(Duration.ofMillis(20));
            recording.start();
        }

        @org.openjdk.jmh.annotations.TearDown
        public void stop() {
            recording.close();
        }
    }

    /** The same while a recording watches: an event object per operation, timed, not committed below the threshold. */
    @Benchmark
    public void slowOperationEventOn(SlowOperationRecording watching) {
        ChannelEvents.operationEnded(ChannelEvents.operationStarted("rxe0", "peer", "SEND", 64), null);
    }

    /** Counting a failed operation by status (the context's error counters; only failures pay it). */
    @Benchmark
    public void countFailure() {
        errors.operationFailed("REM_ACCESS_ERR");
    }

    /** Writing a RemoteBuffer token into a message. */
    @Benchmark
    public void encodeToken() {
        raw.clear();
        token.writeTo(raw);
    }
}
