package org.jrdma.impl;

/** A buffer with a registration of its own (ctx.register, or a pool request above the largest size class). */
final class DedicatedBuffer extends BufferBase {
    private final JniContext context;

    DedicatedBuffer(JniContext context, MemoryRegistration registration) {
        super(registration, 0, registration.length);
        this.context = context;
    }

    @Override
    protected String describe() {
        return "registered buffer of " + length + " bytes on " + context.device().name();
    }

    @Override
    protected void freeMemory() {
        context.childFreed(this);
        registration.markClosed();
    }
}
