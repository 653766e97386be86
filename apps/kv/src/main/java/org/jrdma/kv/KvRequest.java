package org.jrdma.kv;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * One push, pull or barrier: its parts (a message or a slot write per server), each settled once —
 * answered, refused, or failed with its server. It completes when every part is settled, so that
 * when it fails no server still reads the caller's values; the failure names each server that did
 * not apply its part.
 */
final class KvRequest {
    final long timestamp;
    private final BiConsumer<Long, KvRequest> forget; // removes it from the worker's requests
    final CompletableFuture<Void> done = new CompletableFuture<>();
    final int[] lengths;          // pull: in capacity, out the values' lengths
    final int[][] positions;      // pull: per server, the request's indexes it answers for
    private final int[] partsAt;  // per server: parts not settled yet (guarded by this)
    private int remaining;        // all parts not settled yet (guarded by this)
    private KvException failure;  // the first part's failure, the others suppressed in it
    private boolean handedOut;    // guarded by this: request(ts) gave the future to the caller

    KvRequest(long timestamp, BiConsumer<Long, KvRequest> forget, int[] partsAt, int[] lengths, int[][] positions) {
        this.timestamp = timestamp;
        this.forget = forget;
        this.partsAt = partsAt;
        this.remaining = Arrays.stream(partsAt).sum();
        this.lengths = lengths;
        this.positions = positions;
    }

    /** One part at {@code server} is settled: applied ({@code failed} null) or not. */
    synchronized void settle(int server, KvException failed) {
        if (partsAt[server] == 0) {
            return; // settled already: its server went away before this report
        }
        partsAt[server]--;
        remaining--;
        if (failed != null && failure == null) {
            failure = failed;
        } else if (failed != null) {
            failure.addSuppressed(failed);
        }
        if (remaining == 0) {
            // Forgotten before anyone can see it done: a success needs no record, a failure is kept
            // for waitFor unless its future (which reports it) was taken.
            if (failure == null || handedOut) {
                forget.accept(timestamp, this);
            }
            if (failure == null) {
                done.complete(null);
            } else {
                done.completeExceptionally(failure);
            }
        }
    }

    synchronized CompletableFuture<Void> handOut() {
        handedOut = true;
        if (done.isDone()) {
            forget.accept(timestamp, this);
        }
        return done;
    }

    /** The server went away: its parts not answered yet failed. */
    synchronized void serverGone(int server, KvException gone) {
        while (partsAt[server] > 0) {
            settle(server, gone);
        }
    }
}
