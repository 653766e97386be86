package org.jrdma.netty;

import org.jrdma.RdmaContext;

/**
 * What an event loop's {@link RdmaIoHandler} gives the channels registered with it: the jrdma context
 * the loop drives and the allocator over that context's registered memory.
 *
 * @param rdma      the context (client channels connect in it, server channels listen in it)
 * @param allocator its channels' default allocator
 */
record LoopContext(RdmaContext rdma, RegisteredByteBufAllocator allocator) {
    LoopContext(RdmaContext rdma) {
        this(rdma, new RegisteredByteBufAllocator(rdma));
    }
}
