package org.jrdma.impl;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Finds the channel of a record by its key (one array read, no boxing) and the server of a
 * connection request by its listener handle. Also collects the channels whose submissions wait
 * for the end of the event-loop batch.
 */
final class ChannelRegistry {
    private final AtomicReferenceArray<JniChannel> byIndex = new AtomicReferenceArray<>(1 << 16);
    private final ConcurrentHashMap<Long, JniServer> servers = new ConcurrentHashMap<>();
    private final List<JniChannel> dirty = new ArrayList<>(); // loop thread only

    void register(JniChannel channel) {
        byIndex.set(channel.key & 0xffff, channel);
    }

    JniChannel byKey(int key) {
        JniChannel channel = byIndex.get(key & 0xffff);
        return channel != null && channel.key == key ? channel : null;
    }

    void unregister(JniChannel channel) {
        byIndex.compareAndSet(channel.key & 0xffff, channel, null);
    }

    void addServer(JniServer server) {
        servers.put(server.listener, server);
    }

    JniServer server(long listener) {
        return servers.get(listener);
    }

    void unregisterServer(JniServer server) {
        servers.remove(server.listener, server);
    }

    void markDirty(JniChannel channel) {
        dirty.add(channel);
    }

    /** End of a batch (loop thread): one JNI call per channel with submissions. */
    void flushDirty() {
        for (int i = 0; i < dirty.size(); i++) {
            try {
                dirty.get(i).flushBatch();
            } catch (RuntimeException e) {
                System.getLogger("org.jrdma.channel").log(System.Logger.Level.WARNING, "flushing " + dirty.get(i) + " failed", e);
            }
        }
        dirty.clear();
    }
}
