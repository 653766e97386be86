/**
 * jrdma: RDMA messaging for Java. Start at {@link org.jrdma.Rdma}: open an {@link org.jrdma.RdmaContext}
 * on a device ({@link org.jrdma.RdmaConfig}, or the RDMA_* environment variables), allocate or register
 * memory ({@link org.jrdma.RegisteredBuffer}), listen or connect to get an {@link org.jrdma.RdmaChannel}:
 * messages of any size with credits, RDMA WRITE/READ and atomics on {@link org.jrdma.RemoteBuffer}
 * tokens, and the remote-memory agent. Every operation returns a future that completes exactly once;
 * every failure is an {@link org.jrdma.RdmaException} naming its cause. Callbacks
 * ({@link org.jrdma.ChannelHandler}) run on the context's event-loop thread.
 */
package org.jrdma;
