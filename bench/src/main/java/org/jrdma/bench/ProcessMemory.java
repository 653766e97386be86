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

    /**
     * Entries of /proc/self/fd of the kinds a channel holds: sockets, anonymous inodes (eventfd, epoll, timerfd)
     * and memfds. Regular files are left out because the JVM opens and closes those on its own (jars, /dev/random)
     * while a burst runs, which would move the count without a channel leaking or closing anything.
     */
    static int openFiles() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return (int) fds.filter(ProcessMemory::isChannelKind).count();
        }
    }

    private static boolean isChannelKind(Path fd) {
        String target;
        try {
            target = Files.readSymbolicLink(fd).toString();
        } catch (IOException | UnsupportedOperationException closedMeanwhile) {
            return false; // the listing's own descriptor, or one closed since the listing
        }
        return target.startsWith("socket:") || target.startsWith("anon_inode:") || target.startsWith("/memfd:");
    }
}
