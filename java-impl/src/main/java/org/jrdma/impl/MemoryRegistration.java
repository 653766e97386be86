package org.jrdma.impl;

import java.nio.ByteBuffer;

/**
 * One ibv_reg_mr registration: the native MR handle and the memory it covers (kept reachable). Over pool
 * pages ({@link NativeContext#allocatePages0}) it gives them back once deregistered.
 */
final class MemoryRegistration extends NativeResource {
    private final JniContext context;
    private final long region;
    private final ByteBuffer memory; // strong reference: the memory must outlive the registration
    final long address;
    final int length;
    final int lkey;
    final int rkey;
    final int access;
    private final boolean ownsPages;

    /**
     * Registers [address, +length) of memory; the caller has acquired a use of the context for this
     * registration. ownsPages: memory came from allocatePages0 and goes back when this is freed.
     */
    MemoryRegistration(JniContext context, ByteBuffer memory, long address, int length, int access, boolean ownsPages) {
        this.context = context;
        this.memory = memory;
        this.ownsPages = ownsPages;
        this.address = address;
        this.length = length;
        this.access = access;
        this.region = NativeContext.register0(context.handle(), address, length, access);
        this.lkey = NativeContext.lkey0(region);
        this.rkey = NativeContext.rkey0(region);
    }

    JniContext context() {
        return context;
    }

    ByteBuffer memory() {
        return memory;
    }

    @Override
    protected String describe() {
        return "registration of " + length + " bytes on " + context.device().name();
    }

    @Override
    protected void free() {
        try {
            NativeContext.deregister0(region);
            if (ownsPages) {
                NativeContext.freePages0(address, length); // not when deregistering failed: still registered
            }
        } finally {
            context.release();
        }
    }
}
