package org.jrdma.impl;

import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.RdmaClosedException;

/**
 * One native object owned exactly once. Users of the object hold a use count
 * ({@link #acquire()}/{@link #release()}); {@link #close()} is idempotent and, while uses are held,
 * defers {@link #free()} to the last release — so native memory is never freed under a running
 * operation, and a closed object used again throws instead of crashing the JVM.
 */
abstract class NativeResource {
    private static final int CLOSED = 1;
    private static final int ONE_USE = 2;

    /** (uses << 1) | closed. */
    private final AtomicInteger state = new AtomicInteger();
    private final AtomicInteger freed = new AtomicInteger();

    /** What the object is, for messages ("buffer of 4096 bytes on rxe0"). */
    protected abstract String describe();

    /** Frees the native object; called exactly once, when closed and no use is held. */
    protected abstract void free();

    /** Takes a use; throws {@link RdmaClosedException} once closed. */
    final void acquire() {
        for (;;) {
            int s = state.get();
            if ((s & CLOSED) != 0) {
                throw new RdmaClosedException(describe() + " is closed");
            }
            if (s + ONE_USE < 0) {
                throw new IllegalStateException("too many concurrent uses of " + describe());
            }
            if (state.compareAndSet(s, s + ONE_USE)) {
                return;
            }
        }
    }

    /** Gives a use back; the last one after close frees. */
    final void release() {
        int s = state.addAndGet(-ONE_USE);
        if (s < 0) {
            throw new IllegalStateException("release without acquire on " + describe());
        }
        if (s == CLOSED) {
            freeOnce();
        }
    }

    /** Throws {@link RdmaClosedException} if closed (a check, not a use). */
    final void ensureOpen() {
        if ((state.get() & CLOSED) != 0) {
            throw new RdmaClosedException(describe() + " is closed");
        }
    }

    final boolean isClosedFlag() {
        return (state.get() & CLOSED) != 0;
    }

    /** How the parent (the context) closes this child; channels fail their operations first. */
    void closeFromParent() {
        markClosed();
    }

    /**
     * Marks closed; frees now when no use is held, else when the last use is released.
     *
     * @return true for the call that closed it, false if it was closed already
     */
    final boolean markClosed() {
        for (;;) {
            int s = state.get();
            if ((s & CLOSED) != 0) {
                return false;
            }
            if (state.compareAndSet(s, s | CLOSED)) {
                if (s == 0) {
                    freeOnce();
                }
                return true;
            }
        }
    }

    /** Marks closed while holding a use, so that it is not freed before the caller released it (after closing children). */
    final boolean markClosedKeepingUse() {
        try {
            acquire();
        } catch (RdmaClosedException alreadyClosed) {
            return false;
        }
        if (!markClosed()) {
            release();
            return false;
        }
        return true;
    }

    private void freeOnce() {
        if (freed.compareAndSet(0, 1)) {
            free();
        }
    }

    final boolean isFreed() {
        return freed.get() != 0;
    }
}
