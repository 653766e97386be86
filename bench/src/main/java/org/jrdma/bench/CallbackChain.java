package org.jrdma.bench;

import java.util.ArrayDeque;

/**
 * Posts the next operation of a callback chain (each completion posts the next) without growing
 * the stack. An operation can complete before its callback is attached; {@code whenComplete} then
 * runs the callback inline, and that callback's post would nest one level deeper each time — until
 * a StackOverflowError, which CompletableFuture swallows, silently ends the chain. Here a post made
 * from inside another post on the same thread waits until the outer one returns.
 */
final class CallbackChain {
    /** Per thread, reused (no allocation per post): whether a post runs, and the posts waiting for it. */
    private static final ThreadLocal<CallbackChain> STATE = ThreadLocal.withInitial(CallbackChain::new);

    private boolean running;
    private final ArrayDeque<Runnable> pending = new ArrayDeque<>();

    private CallbackChain() {
    }

    /** Runs {@code post} now, or after the post that is running on this thread has returned. */
    static void post(Runnable post) {
        CallbackChain state = STATE.get();
        if (state.running) {
            state.pending.add(post);
            return;
        }
        state.running = true;
        try {
            for (Runnable next = post; next != null; next = state.pending.poll()) {
                next.run();
            }
        } finally {
            state.pending.clear();
            state.running = false;
        }
    }
}
