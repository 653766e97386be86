package org.jrdma.impl;

import java.nio.ByteBuffer;

/** One ibv_reg_mr registration: the native MR handle and the memory it covers (kept reachable). */
final class MemoryRegistration extends NativeResource {
    private final JniContext context;
    private final long region;
    private final ByteBuffer memory; // strong reference: the memory must outlive the registration
    final long address;
    final int length;
    final int lkey;
    final int rkey;
    final int access;

    /** Registers memory[0, length); the caller has acquired a use of the context for this registration. */
    MemoryRegistration(JniContext context, ByteBuffer memory, long address, int length, int access) {
        this.context = context;
        this.memory = memory;
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
        } finally {
            context.release();
        }
    }
}
