package org.jrdma.bench;

import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * Whether HotSpot's optimizing compiler (C2) is compiling or has methods queued, from the VM's own
 * diagnostic command ({@code jcmd PID Compiler.queue}). The compilation MXBean counts a compilation's
 * time only once it finished, and under emulation one C2 compilation runs for seconds: a warm-up that
 * trusted the MXBean alone ended while C2 was still at work, and the compiler thread then took half of
 * a pinned benchmark's CPU through the measurement (docs/performance.md).
 */
final class JitActivity {
    private JitActivity() {
    }

    /** C2 compilations running or queued now; -1 where the VM does not say (not HotSpot). */
    static int optimizingCompilations() {
        String queue;
        try {
            queue = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerQueue",
                    new Object[] {new String[0]}, new String[] {String[].class.getName()});
        } catch (JMException | RuntimeException e) {
            return -1;
        }
        return countOptimizing(queue);
    }

    /** Counts the C2 entries of a {@code Compiler.queue} listing: its current compiles and its queue. */
    static int countOptimizing(String listing) {
        int count = 0;
        boolean inC2Queue = false;
        for (String line : listing.split("\n")) {
            String trimmed = line.strip();
            if (trimmed.endsWith("compile queue:")) {
                inC2Queue = trimmed.startsWith("C2");
            } else if (trimmed.startsWith("C2 CompilerThread")) {
                count++; // a current compile
            } else if (inC2Queue && !trimmed.isEmpty() && Character.isDigit(trimmed.charAt(0))) {
                count++;
            }
        }
        return count;
    }
}
