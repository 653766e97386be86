package org.jrdma.kv;

/**
 * Who meets in a barrier kept by the scheduler ({@link KvMember#barrier(KvGroup)}), as ps-lite's
 * kWorkerGroup, kServerGroup and both together. The scheduler itself is in none of them.
 */
public enum KvGroup {
    /** Every worker of the job. */
    WORKERS(1),
    /** Every server of the job. */
    SERVERS(2),
    /** Every worker and every server. */
    ALL(3);

    final int code; // its bits: 1 workers, 2 servers (the wire's group field)

    KvGroup(int code) {
        this.code = code;
    }

    boolean includes(KvRole role) {
        return role == KvRole.WORKER ? (code & 1) != 0 : role == KvRole.SERVER && (code & 2) != 0;
    }

    /** How many nodes of a job with {@code workers} and {@code servers} meet in it. */
    int size(int workers, int servers) {
        return (includes(KvRole.WORKER) ? workers : 0) + (includes(KvRole.SERVER) ? servers : 0);
    }

    static KvGroup of(int code) {
        for (KvGroup group : values()) {
            if (group.code == code) {
                return group;
            }
        }
        return null;
    }
}
