package org.jrdma.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
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
            System.gc();
            Thread.sleep(50); // the reference handler's turn to enqueue what was collected
            for (ByteBuf buf : new ByteBuf[] {PooledByteBufAllocator.DEFAULT.directBuffer(1),
                PooledByteBufAllocator.DEFAULT.heapBuffer(1), UnpooledByteBufAllocator.DEFAULT.directBuffer(1)}) {
                buf.release();
            }
        }
        List<String> reports = LeakReports.take();
        assertEquals(List.of(), reports, "Netty reported leaked buffers after " + context.getDisplayName());
    }
}
