package org.jrdma.impl;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.jrdma.RegistrationException;

/** Page-aligned direct memory for registration (an aligned MR start keeps the HCA's page tables small). */
final class AlignedMemory {
    static final int PAGE = 4096;
    private static final int ENOMEM = 12;

    private AlignedMemory() {
    }

    /**
     * A direct buffer of exactly {@code bytes} bytes whose first byte is page-aligned; within a page of
     * Integer.MAX_VALUE, where no room is left to align, an unaligned one (alignment only saves the HCA
     * page-table entries; the allocation still names the direct-memory limit when it fails).
     */
    static ByteBuffer allocate(int bytes) {
        long rounded = ((long) bytes + PAGE - 1) / PAGE * PAGE;
        if (rounded + PAGE > Integer.MAX_VALUE) {
            return direct(bytes);
        }
        // alignedSlice drops the unaligned head and rounds the end down to a page: allocate a page
        // more than the rounded size, then cut to the size asked for.
        ByteBuffer aligned = direct((int) rounded + PAGE).alignedSlice(PAGE);
        return aligned.limit(bytes).slice();
    }

    /**
     * ByteBuffer.allocateDirect, but past the JVM's direct-memory limit a RegistrationException (ENOMEM)
     * that names the limit and the remedy instead of the JDK's OutOfMemoryError.
     */
    static ByteBuffer direct(int bytes) {
        try {
            return ByteBuffer.allocateDirect(bytes);
        } catch (OutOfMemoryError e) {
            RegistrationException failure = new RegistrationException("cannot allocate " + bytes + " bytes of direct"
                    + " memory for registration (" + e.getMessage() + "): the JVM's limit is -XX:MaxDirectMemorySize ("
                    + maxDirectMemory() + "); raise it or allocate less. Registered memory also counts against the"
                    + " locked-memory limit (ulimit -l)", ENOMEM);
            failure.initCause(e);
            throw failure;
        }
    }

    private static String maxDirectMemory() {
        for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (argument.startsWith("-XX:MaxDirectMemorySize=")) {
                return "set to " + argument.substring(argument.indexOf('=') + 1);
            }
        }
        return "not set: the heap's maximum, " + Runtime.getRuntime().maxMemory() + " bytes";
    }
}
