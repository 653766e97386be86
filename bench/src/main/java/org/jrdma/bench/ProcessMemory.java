package org.jrdma.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** This process's resident memory and open files, as Linux reports them in /proc. */
final class ProcessMemory {
    private ProcessMemory() {
    }

    /** VmRSS of /proc/self/status in bytes. */
    static long residentBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IOException("no VmRSS in /proc/self/status");
    }

    /** Entries of /proc/self/fd. */
    static int openFiles() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return (int) fds.count();
        }
    }
}
