package org.jrdma.impl;

import java.nio.ByteBuffer;

/** Page-aligned direct memory for registration (an aligned MR start keeps the HCA's page tables small). */
final class AlignedMemory {
    static final int PAGE = 4096;

    private AlignedMemory() {
    }

    /** A direct buffer of exactly {@code bytes} bytes whose first byte is page-aligned. */
    static ByteBuffer allocate(int bytes) {
        long rounded = ((long) bytes + PAGE - 1) / PAGE * PAGE;
        if (rounded + PAGE > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("too large for one buffer: " + bytes + " bytes");
        }
        // alignedSlice drops the unaligned head and rounds the end down to a page: allocate a page
        // more than the rounded size, then cut to the size asked for.
        ByteBuffer aligned = ByteBuffer.allocateDirect((int) rounded + PAGE).alignedSlice(PAGE);
        return aligned.limit(bytes).slice();
    }
}
