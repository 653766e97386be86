package org.jrdma.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * After each test class of this module (registered for all of them through junit-platform.properties):
 * no buffer was leaked. Netty's leak detector (PARANOID in this module's tests) reports a buffer that was
 * collected without its release when a later buffer is tracked; this collects garbage, tracks a few
 * buffers, and fails when any report was logged ({@link LeakReports}).
 */
public final class NoLeaks implements AfterAllCallback {
    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        for (int round = 0; round < 3; round++) {
            collectGarbage();
            for (ByteBuf buf : new ByteBuf[] {PooledByteBufAllocator.DEFAULT.directBuffer(1),
                PooledByteBufAllocator.DEFAULT.heapBuffer(1), UnpooledByteBufAllocator.DEFAULT.directBuffer(1)}) {
                buf.release();
            }
        }
        List<String> reports = LeakReports.take();
        assertEquals(List.of(), reports, "Netty reported leaked buffers after " + context.getDisplayName());
    }

    /**
     * A collection, waited for until the reference handler enqueued what it found: a sentinel collected
     * in the same collection arrives in its queue (the leak detector's own references are enqueued alike).
     */
    private static void collectGarbage() throws InterruptedException {
        ReferenceQueue<Object> queue = new ReferenceQueue<>();
        WeakReference<Object> sentinel = new WeakReference<>(new Object(), queue);
        while (queue.remove(100) == null) { // woken by the enqueue; the timeout only repeats the request for a collection
            System.gc();
        }
        sentinel.clear();
    }
}
