package org.jrdma.impl;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Finds the channel of an event: by key (from the wr_id of completions; no boxing, one array read)
 * or by native handle (connection events), and the server of a connection request. Also collects
 * the channels touched in a batch, whose receive buffers are re-posted together at its end.
 */
final class ChannelRegistry {
    private final AtomicReferenceArray<JniChannel> byIndex = new AtomicReferenceArray<>(1 << 16);
    private final ConcurrentHashMap<Long, JniChannel> byHandle = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, JniServer> servers = new ConcurrentHashMap<>();
    private final List<JniChannel> dirty = new ArrayList<>(); // loop thread only

    void add(JniChannel channel) {
        byHandle.put(channel.handle, channel);
    }

    void register(int key, JniChannel channel) {
        byIndex.set(key & 0xffff, channel);
    }

    JniChannel byKey(int key) {
        JniChannel channel = byIndex.get(key & 0xffff);
        return channel != null && channel.keyed() && channel.key() == key ? channel : null;
    }

    JniChannel byHandle(long handle) {
        return byHandle.get(handle);
    }

    void unregister(JniChannel channel) {
        byHandle.remove(channel.handle, channel);
        if (channel.keyed()) {
            byIndex.compareAndSet(channel.key() & 0xffff, channel, null);
        }
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

    /** End of a batch (loop thread). */
    void flushDirty() {
        for (int i = 0; i < dirty.size(); i++) {
            try {
                dirty.get(i).flushBatch();
            } catch (RuntimeException e) {
                System.getLogger("org.jrdma").log(System.Logger.Level.WARNING, "flushing " + dirty.get(i) + " failed", e);
            }
        }
        dirty.clear();
    }
}
