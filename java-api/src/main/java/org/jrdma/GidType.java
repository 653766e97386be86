package org.jrdma;

/** The kind of a GID table entry. */
public enum GidType {
    /** InfiniBand. */
    IB,
    /** RoCE v1 (Ethernet, not routable). */
    ROCE_V1,
    /** RoCE v2 (UDP/IP, routable). */
    ROCE_V2
}
