package org.jrdma.impl;

import java.util.Arrays;
import org.jrdma.ChannelCounters;
import org.jrdma.PollMode;
import org.jrdma.Transport;

/**
 * The layouts of the records that cross JNI, as the Java side defines them. The native library
 * reports its own ({@code NativeLibrary.layout0}, native/src/protocol/layout.h); a difference makes
 * jrdma unavailable with both lines in the message, instead of misreading records later.
 */
final class Layouts {
    private Layouts() {
    }

    static String expected() {
        return EventRecords.layout() + "; " + Submissions.layout() + "; " + ChannelSettings.layout() + "; " + ContextSettings.layout() + "; counters "
                + String.join(",", ChannelCounters.NAMES) + "; poll modes "
                + String.join(",", Arrays.stream(PollMode.values()).filter(m -> m != PollMode.CALLER) // Java's alone
                        .map(Enum::name).toList())
                + "; transports " + String.join(",", Arrays.stream(Transport.values()).map(Enum::name).toList())
                + "; " + NativeCodes.layout();
    }

    static void check(String nativeLayout) {
        String expected = expected();
        if (!expected.equals(nativeLayout)) {
            throw new IllegalStateException("native record layout mismatch: libjrdma.so has [" + nativeLayout
                    + "] but jrdma-impl expects [" + expected + "]; use the jrdma-native jar built with this jrdma-impl");
        }
    }
}
