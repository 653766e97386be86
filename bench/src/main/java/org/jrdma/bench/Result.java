package org.jrdma.bench;

import org.HdrHistogram.Histogram;

/**
 * One row of the table: a test at a size. Latency rows have percentiles (microseconds, one-way
 * for send/write ping-pong as perftest reports them, full round trip for read); bandwidth rows
 * have MiB/s and millions of messages per second.
 */
record Result(String test, int size, int iterations, double p50, double p99, double p999, double mibPerSecond,
              double mmsgPerSecond, String note) {

    static Result latency(String test, int size, Histogram nanos) {
        return new Result(test, size, (int) nanos.getTotalCount(), nanos.getValueAtPercentile(50) / 1000.0,
                nanos.getValueAtPercentile(99) / 1000.0, nanos.getValueAtPercentile(99.9) / 1000.0, Double.NaN, Double.NaN, "");
    }

    static Result bandwidth(String test, int size, int iterations, long nanos) {
        double seconds = nanos / 1e9;
        return new Result(test, size, iterations, Double.NaN, Double.NaN, Double.NaN,
                (double) size * iterations / seconds / (1 << 20), iterations / seconds / 1e6, "");
    }

    static Result skipped(String test, int size, String why) {
        return new Result(test, size, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, why);
    }

    boolean isLatency() {
        return test.endsWith("_lat");
    }
}
