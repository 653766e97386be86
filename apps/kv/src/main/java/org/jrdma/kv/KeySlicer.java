package org.jrdma.kv;

/**
 * Which server owns a key (ps-lite's key ranges, which it lets the application set): every worker of
 * a job must use the same slicer over the same list of servers, or a key's pushes and pulls reach
 * different servers.
 */
@FunctionalInterface
public interface KeySlicer {
    /**
     * The server that owns {@code key}.
     *
     * @param key     the key
     * @param servers how many servers there are
     * @return the owner's index, 0 to {@code servers - 1}
     */
    int serverOf(long key, int servers);

    /**
     * ps-lite's default: server i of n owns the i-th n-th of the unsigned 64-bit key space.
     *
     * @return the slicer
     */
    static KeySlicer evenRanges() {
        return (key, servers) -> {
            if (servers == 1) {
                return 0;
            }
            long width = Long.divideUnsigned(-1L, servers) + 1;
            return (int) Math.min(servers - 1, Long.divideUnsigned(key, width));
        };
    }

    /**
     * Keys spread by a hash of the key: neighbouring keys on different servers (for key spaces that are
     * dense at one end, where even ranges would load one server).
     *
     * @return the slicer
     */
    static KeySlicer hashed() {
        return (key, servers) -> Math.floorMod(Long.hashCode(key * 0x9E3779B97F4A7C15L), servers);
    }
}
