package org.jrdma.bench;

import org.jrdma.Access;
import org.jrdma.RdmaContext;
import org.jrdma.RegisteredBuffer;
import org.jrdma.kv.KvWorker;

/**
 * One worker of the push/pull benchmark and its memory: a value and a destination per window slot,
 * request i using slot i % window (its key, its value, its destination) — the window is first in,
 * first out, so a slot is free again when its request is issued.
 */
final class KvIssuers implements AutoCloseable {
    private final KvWorker worker;
    private final long[][] keys;
    private final RegisteredBuffer[] values;
    private final RegisteredBuffer[] destinations;
    private final int[][] lengths; // per slot: a pull or PushPull writes the lengths it got into it
    private final int size;

    KvIssuers(RdmaContext ctx, KvWorker worker, long[] slotKeys, int size, int window) {
        this.worker = worker;
        this.size = size;
        keys = new long[window][];
        values = new RegisteredBuffer[window];
        destinations = new RegisteredBuffer[window];
        lengths = new int[window][];
        for (int i = 0; i < window; i++) {
            keys[i] = new long[] {slotKeys[i]};
            values[i] = ctx.allocate(size);
            destinations[i] = ctx.allocate(size, Access.REMOTE_WRITE);
            lengths[i] = new int[] {size};
        }
    }

    /** Pushes every slot's key once: it exists, with its length, before anything is timed. */
    void createKeys() throws InterruptedException {
        for (int i = 0; i < keys.length; i++) {
            worker.waitFor(worker.push(keys[i], values[i], lengths[i]));
        }
    }

    KvLoad.Issuer issuer(String op) {
        return new KvLoad.Issuer() {
            @Override
            public long issue(int i) {
                int slot = i % keys.length;
                lengths[slot][0] = size;
                return switch (op) {
                    case "push" -> worker.push(keys[slot], values[slot], lengths[slot]);
                    case "pull" -> worker.pull(keys[slot], destinations[slot], lengths[slot]);
                    default -> worker.pushPull(keys[slot], values[slot], lengths[slot], destinations[slot]);
                };
            }

            @Override
            public void complete(long timestamp) throws InterruptedException {
                worker.waitFor(timestamp);
            }
        };
    }

    @Override
    public void close() {
        worker.close();
        for (int i = 0; i < keys.length; i++) {
            values[i].close();
            destinations[i].close();
        }
    }
}
