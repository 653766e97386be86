package org.jrdma;

/**
 * What carries a context's channels ({@link RdmaConfig#transport()}, {@code RDMA_TRANSPORT}). Every
 * transport gives the same API and semantics: messages of any size with credits and rendezvous,
 * one-sided write, read and atomics on registered memory (served by the peer's library where the
 * transport has no RDMA), the remote-memory agent and its tokens. docs/transports.md compares them.
 */
public enum Transport {
    /**
     * The default: {@link #VERBS} when a device with an active port is there (or {@code device} names
     * one), else {@link #TCP} — with shared memory, as {@link #SHM}, for every peer on the same host
     * that can share it (learned while connecting; the others use TCP).
     */
    AUTO,
    /** RDMA verbs over an RDMA device (InfiniBand, RoCE, iWARP, Soft-RoCE), connected with rdma_cm. */
    VERBS,
    /**
     * One TCP connection per channel, no RDMA device or rdma-core needed: one-sided operations are
     * served by the peer's event loop, which checks every key, range and right as an RDMA device does.
     * The device settings (port, GID, MTU, queue-pair attributes) do not apply.
     */
    TCP,
    /**
     * Shared memory with peers on the same host: the connection is set up over TCP (loopback or any
     * local address), then the frames go through two rings in a shared-memory object the client
     * creates and the server proves it can open (same host, same user, same /dev/shm); the socket only
     * wakes a sleeping peer and tells when it left. A peer that cannot share memory is refused.
     */
    SHM
}
