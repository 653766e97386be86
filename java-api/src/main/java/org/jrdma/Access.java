package org.jrdma;

/**
 * Remote access a registered buffer grants to peers. Without any, a buffer is local-only
 * (IBV_ACCESS_LOCAL_WRITE: it can be sent from, received into and read into) and has no rkey.
 * Ask only for what the peer needs.
 */
public enum Access {
    /** Peers may RDMA READ from it. */
    REMOTE_READ(4),
    /** Peers may RDMA WRITE into it. */
    REMOTE_WRITE(2),
    /** Peers may run atomic operations on it. */
    REMOTE_ATOMIC(8);

    /** The IBV_ACCESS_* bit. */
    public final int verbsFlag;

    Access(int verbsFlag) {
        this.verbsFlag = verbsFlag;
    }
}
