package org.jrdma.kv;

import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A push a {@link KvServer} applied, as its {@link KvPushHandler} sees it: the worker, the keys, the
 * worker's timestamp, and the answer the worker waits for.
 */
public final class KvPush {
    private final InetSocketAddress worker;
    private final long[] keys;
    private final long timestamp;
    private final Runnable answer;
    private final AtomicBoolean answered = new AtomicBoolean();

    KvPush(InetSocketAddress worker, long[] keys, long timestamp, Runnable answer) {
        this.worker = worker;
        this.keys = keys;
        this.timestamp = timestamp;
        this.answer = answer;
    }

    /**
     * Who pushed.
     *
     * @return the worker's address
     */
    public InetSocketAddress worker() {
        return worker;
    }

    /**
     * The keys the push applied (this server's share of the worker's request).
     *
     * @return a copy of the keys
     */
    public long[] keys() {
        return keys.clone();
    }

    /**
     * The worker's request id (a write into a slot carries its slot's id instead).
     *
     * @return the timestamp the answer carries
     */
    public long timestamp() {
        return timestamp;
    }

    /**
     * Tells the worker its push is done; from any thread, once (later calls do nothing). A worker that
     * left meanwhile is not told (its request failed already).
     */
    public void answer() {
        if (answered.compareAndSet(false, true)) {
            answer.run();
        }
    }

    /**
     * Whether {@link #answer} was called.
     *
     * @return true once answered
     */
    public boolean answered() {
        return answered.get();
    }
}
