package org.jrdma.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** This process's resident memory and open files, as Linux reports them in /proc. */
final class ProcessMemory {
    /** The first line of a mapping in smaps: its address range. */
    private static final Pattern MAPPING = Pattern.compile("[0-9a-f]+-[0-9a-f]+ ");

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
     * Resident bytes of the mappings of /dev/infiniband (/proc/self/smaps): queues a device driver maps into the
     * process — Soft-RoCE's send, receive and completion queues are kernel memory mapped whole — which count in
     * VmRSS but are the device's, not the library's.
     */
    static long deviceMappedBytes() throws IOException {
        long bytes = 0;
        boolean device = false;
        for (String line : Files.readAllLines(Path.of("/proc/self/smaps"))) {
            if (MAPPING.matcher(line).lookingAt()) {
                device = line.contains("/dev/infiniband/");
            } else if (device && line.startsWith("Rss:")) {
                bytes += Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        return bytes;
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
