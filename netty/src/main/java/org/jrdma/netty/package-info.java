/**
 * A Netty 4.2 transport over jrdma: switch a Netty (or gRPC-java) program from NIO to RDMA, TCP or
 * shared memory by changing its event loop group and channel classes.
 *
 * <pre>{@code
 * EventLoopGroup group = new MultiThreadIoEventLoopGroup(RdmaIoHandler.newFactory());
 * new ServerBootstrap().group(group).channel(RdmaServerSocketChannel.class)...
 * new Bootstrap().group(group).channel(RdmaSocketChannel.class)...
 * }</pre>
 *
 * <p>Each event loop drives one jrdma context ({@link org.jrdma.PollMode#CALLER}): the loop's thread sees
 * the completions and runs the pipeline, between Netty's tasks and timers. A channel is a byte stream
 * over jrdma messages: writes are copied into registered memory once and sent in order (large ones by
 * rendezvous); what arrives is read in the order it was sent. docs/netty.md says what differs from TCP.
 */
package org.jrdma.netty;
