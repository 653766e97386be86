package org.jrdma.kv;

import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A request a {@link KvServer} accepted, as its {@link KvRequestHandler} sees it (ps-lite's KVMeta with
 * its delayed response): the worker, what it asked, the keys, the worker's timestamp, and the answer
 * the worker waits for. A push or PushPull is applied already; a pull's or a PushPull's values are read
 * when it is answered, so an answer held until a round is complete returns the round's values.
 */
public final class KvServerRequest {
    /** What the worker asked. */
    public enum Kind {
        /** Fold values in ({@link KvWorker#push}): applied before the handler sees it. */
        PUSH,
        /** Read values ({@link KvWorker#pull}): written to the worker when answered. */
        PULL,
        /** Both in one round trip ({@link KvWorker#pushPull}): applied; the merged values written when answered. */
        PUSH_PULL
    }

    private final InetSocketAddress worker;
    private final Kind kind;
    private final long[] keys;
    private final long timestamp;
    private final Runnable answer;
    private final AtomicBoolean answered = new AtomicBoolean();

    KvServerRequest(InetSocketAddress worker, Kind kind, long[] keys, long timestamp, Runnable answer) {
        this.worker = worker;
        this.kind = kind;
        this.keys = keys;
        this.timestamp = timestamp;
        this.answer = answer;
    }

    /**
     * Who asked.
     *
     * @return the worker's address
     */
    public InetSocketAddress worker() {
        return worker;
    }

    /**
     * What was asked.
     *
     * @return push, pull or both
     */
    public Kind kind() {
        return kind;
    }

    /**
     * The request's keys at this server (its share of the worker's request).
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
     * Answers the worker; from any thread, once (later calls do nothing). A pull or PushPull writes the
     * keys' values as they are now into the worker's memory, then tells it; should a value have grown
     * past its destination meanwhile (an overwrite of another length), the worker is told so and given
     * nothing. A worker that left meanwhile is not told (its request failed already), nor is any worker
     * once the server is closed.
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
