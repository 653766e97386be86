package org.jrdma.kv;

/**
 * What a process is in a push/pull job (ps-lite's node roles): the scheduler that every other node
 * registers with, a server that holds a share of the keys, or a worker that pushes and pulls.
 */
public enum KvRole {
    /** Registers nodes, gives them ranks and the servers' addresses, keeps the group barriers. */
    SCHEDULER,
    /** Holds the values of its share of the key space ({@link KvServer}). */
    SERVER,
    /** Pushes and pulls ({@link KvWorker}). */
    WORKER;

    /** The role in the words of {@code RDMA_KV_ROLE}: scheduler, server, worker. */
    static KvRole parse(String word) {
        for (KvRole role : values()) {
            if (role.name().equalsIgnoreCase(word.trim())) {
                return role;
            }
        }
        throw new IllegalArgumentException("RDMA_KV_ROLE=" + word + ": expected scheduler, server or worker");
    }
}
