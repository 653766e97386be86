package org.jrdma;

/**
 * How a context's event loop waits for completions ({@link RdmaConfig#pollMode()}): on a thread
 * of its own (EVENT, ADAPTIVE, BUSY), or on the application's thread (CALLER).
 * docs/performance.md compares them against perftest.
 */
public enum PollMode {
    /** Sleeps in epoll until the device signals a completion: no CPU when idle, the highest latency. */
    EVENT,
    /**
     * The default: after activity the loop spins on the completion queue for a self-tuning time before
     * it arms the queue and sleeps: long enough to catch 90 % of the recent gaps between running out of
     * work and the next work, when that is within ten wake-ups' worth of spinning on this machine (or
     * {@link RdmaConfig#adaptiveSpinMicros()} when set). Answers that arrive soon after a send are
     * picked up without the wake-up cost; traffic further apart, and an idle context, sleep (spins that
     * find nothing before an idle sleep take at most 0.5 % of a core).
     */
    ADAPTIVE,
    /** Spins on the completion queue all the time: the lowest latency, one core busy per context. */
    BUSY,
    /**
     * No loop thread: the application's thread drives the context by calling
     * {@link RdmaContext#progress}, and every callback runs inside that call. No hand-off between
     * threads: a ping-pong is one thread per side, and an event loop of its own (Netty's) embeds the
     * context. Nothing completes while no thread calls it. Set in code only: a program configured
     * from the environment does not call progress.
     */
    CALLER
}
