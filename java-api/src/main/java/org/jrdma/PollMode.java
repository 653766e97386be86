package org.jrdma;

/**
 * How a context's event-loop thread waits for completions ({@link RdmaConfig#pollMode()}).
 * docs/performance.md compares the three against perftest.
 */
public enum PollMode {
    /** Sleeps in epoll until the device signals a completion: no CPU when idle, the highest latency. */
    EVENT,
    /**
     * The default: after activity the loop spins on the completion queue for a self-tuning time (at
     * most {@link RdmaConfig#adaptiveSpinMicros()}) before it arms the queue and sleeps. Spins that
     * find nothing shorten the next spin, so an idle context sleeps; answers that arrive soon after
     * a send are picked up without the wake-up cost.
     */
    ADAPTIVE,
    /** Spins on the completion queue all the time: the lowest latency, one core busy per context. */
    BUSY
}
