package org.jrdma;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * One reliable connection. All methods are thread-safe and post from the calling thread; every
 * returned future completes exactly once — with the result, or with an exception naming the cause
 * ({@link RdmaOperationException} carries the ibv_wc_status). Offsets are checked before posting,
 * so a bad range is an {@link IllegalArgumentException}, never a broken queue pair. After a queue
 * pair error the channel closes and every pending and later operation fails with the same cause.
 *
 * <p>Operations issued on the context's event-loop thread (from a {@link ChannelHandler} or a
 * future's callback) are posted together when the loop finishes its current batch of events — one
 * doorbell for all of them — so such a caller must not wait for their futures; chain on them
 * instead. Futures complete in the order their operations were issued on the channel. An
 * operation issued from another thread may complete before a callback is attached to its future;
 * the callback then runs at once in the attaching thread — a chain that issues the next operation
 * from each callback should loop rather than recurse there, or its stack grows with every step.
 */
public interface RdmaChannel extends AutoCloseable {
    /**
     * The peer's address.
     *
     * @return the address of the other end (on a server: the client's)
     */
    InetSocketAddress remoteAddress();

    /**
     * This end's address: the device's (or, over TCP and shared memory, the socket's) address and port
     * of the connection, as the peer sees it in its {@link #remoteAddress()}.
     *
     * @return this end's address, or null before the channel opened
     */
    InetSocketAddress localAddress();

    /**
     * Largest message {@link #send} accepts: the peer's {@link RdmaConfig#maxMessageSize()} (before the
     * channel is open, this side's).
     *
     * @return the largest length {@link #send} accepts, in bytes
     */
    int maxMessageSize();

    /**
     * Sets the handler for incoming messages; messages that arrived before are delivered to it now.
     *
     * @param handler the new handler (replaces the one given at connect or accept)
     */
    void setHandler(ChannelHandler handler);

    /**
     * Sends bytes [offset, offset + length) of a registered buffer, any length up to {@link #maxMessageSize()}.
     * Up to {@link RdmaConfig#eagerSize()} - 16 bytes the message is copied into one of the peer's receive
     * buffers and the future completes when the peer's device has it; a longer one goes by rendezvous: the
     * peer reads it straight from this buffer into its destination (exactly these bytes are readable by
     * it, and only until then), and the future completes when the peer has every byte — the buffer may
     * then be reused. The peer receives every message in the order they were sent, whatever their size.
     * Fails with {@link BufferTooSmallException} when the receive the peer posted for it is too small.
     *
     * @param buffer the registered bytes to send
     * @param offset where the message starts in {@code buffer}
     * @param length the message's length, 0 to {@link #maxMessageSize()}
     * @return completes when the peer has the message (see above)
     */
    CompletableFuture<Void> send(RegisteredBuffer buffer, int offset, int length);

    /**
     * Posts a buffer for the next message that arrives (receives are filled in the order they are
     * posted; messages that find no posted receive go to the handler). A message above the eager size
     * is read by the device straight into it, with no copy. Completes with the message's length; a
     * message longer than {@code length} fails it with {@link BufferTooSmallException} carrying the
     * needed size (an eager message then goes to the handler instead; a larger one is not transferred
     * and its sender's send fails too). The buffer must stay open until the future completes.
     *
     * @param buffer where the message goes
     * @param offset where in {@code buffer}
     * @param length room for the message, in bytes
     * @return completes with the message's length
     */
    CompletableFuture<Integer> receive(RegisteredBuffer buffer, int offset, int length);

    /**
     * RDMA WRITE of local bytes into the peer's memory.
     *
     * @param local        the bytes to write
     * @param offset       where they start in {@code local}
     * @param remote       the peer's memory (a token with REMOTE_WRITE)
     * @param remoteOffset where to write in {@code remote}
     * @param length       bytes to write
     * @return completes when the peer's device has the bytes
     */
    CompletableFuture<Void> write(RegisteredBuffer local, int offset, RemoteBuffer remote, long remoteOffset, int length);

    /**
     * RDMA WRITE with immediate data: the peer's handler gets {@code immediate} (uses one credit).
     *
     * @param local        the bytes to write
     * @param offset       where they start in {@code local}
     * @param remote       the peer's memory (a token with REMOTE_WRITE)
     * @param remoteOffset where to write in {@code remote}
     * @param length       bytes to write
     * @param immediate    the 32 bits {@link ChannelHandler#onImmediate} receives once the bytes are there
     * @return completes when the peer's device has the bytes
     */
    CompletableFuture<Void> writeWithImmediate(RegisteredBuffer local, int offset, RemoteBuffer remote, long remoteOffset,
                                               int length, int immediate);

    /**
     * RDMA READ of the peer's memory into local bytes.
     *
     * @param remote       the peer's memory (a token with REMOTE_READ)
     * @param remoteOffset where to read in {@code remote}
     * @param local        where the bytes go
     * @param offset       where in {@code local}
     * @param length       bytes to read
     * @return completes when the bytes are in {@code local}
     */
    CompletableFuture<Void> read(RemoteBuffer remote, long remoteOffset, RegisteredBuffer local, int offset, int length);

    /**
     * Atomic compare-and-swap of an 8-byte aligned remote word.
     *
     * @param remote       the peer's memory (a token with REMOTE_ATOMIC)
     * @param remoteOffset the word's offset in {@code remote}, a multiple of 8
     * @param expected     the value the word must have
     * @param newValue     the value it gets if it had {@code expected}
     * @return completes with the word's previous value (equal to {@code expected} when swapped)
     */
    CompletableFuture<Long> compareAndSwap(RemoteBuffer remote, long remoteOffset, long expected, long newValue);

    /**
     * Atomic fetch-and-add on an 8-byte aligned remote word.
     *
     * @param remote       the peer's memory (a token with REMOTE_ATOMIC)
     * @param remoteOffset the word's offset in {@code remote}, a multiple of 8
     * @param delta        what to add (wrapping)
     * @return completes with the word's previous value
     */
    CompletableFuture<Long> fetchAndAdd(RemoteBuffer remote, long remoteOffset, long delta);

    /**
     * Remote-memory agent: asks the peer to allocate {@code size} bytes of zeroed memory registered for
     * exactly {@code access} and completes with its token (a registration of exactly those bytes). The
     * peer refuses beyond its quota for this channel ({@link RemoteAllocationException}); no answer
     * within {@link AgentLimits#timeoutMillis()} fails with {@link AgentTimeoutException}. The memory
     * lives until {@link #releaseRemote} or until the channel closes.
     *
     * @param size   bytes to allocate at the peer
     * @param access the rights the token grants (at least one)
     * @return completes with the token of the peer's new memory
     */
    CompletableFuture<RemoteBuffer> allocateRemote(int size, Access... access);

    /**
     * Gives back memory {@link #allocateRemote} got from this channel's peer: the peer frees it and its
     * token stops working. Operations on it issued before this one complete first (channel order).
     * Over TCP and shared memory the token is dead for every operation issued after this one on the
     * channel; over verbs the device accepts it until the peer's event loop, which has the release
     * when this completes, has deregistered the memory (a matter of microseconds: do not use a
     * released token).
     *
     * @param allocated a token {@link #allocateRemote} completed with on this channel
     * @return completes when the release has reached the peer
     */
    CompletableFuture<Void> releaseRemote(RemoteBuffer allocated);

    /**
     * Hands the peer access to the buffer's bytes with exactly {@code access} rights: a registration of
     * its own, whose token the peer's {@link ChannelHandler#onToken} receives in order with messages.
     * The token dies when the channel closes or the buffer is closed, whichever comes first.
     *
     * @param buffer the bytes to expose
     * @param access the rights to grant (at least one)
     * @return completes with the token sent
     */
    CompletableFuture<RemoteBuffer> sendToken(RegisteredBuffer buffer, Access... access);

    /**
     * This channel, with a deadline on each operation issued through the returned view: a send, write,
     * read, atomic, {@link #releaseRemote} or {@link #sendToken} not completed {@code deadline} after it was
     * issued closes the channel, and that operation and every other pending one fail with an
     * {@link OperationTimeoutException} that names the late operation, how long it waited and its deadline.
     * RDMA cannot withdraw one posted operation, and those queued behind it keep their order, so a missed
     * deadline ends the channel (reconnect to go on) — use it as the bound on how long a caller waits for
     * an unhealthy peer or fabric, not as a per-request cancel. Found within about 100 ms of the deadline.
     * The view shares everything else with this channel (handler, counters, close); each call is cheap,
     * so views with different deadlines can be used side by side. Receives are not bounded (they wait for
     * the peer's next message); {@link #allocateRemote} keeps its own bound
     * ({@link AgentLimits#timeoutMillis()}). {@link RdmaConfig#operationTimeoutMillis()} still applies.
     *
     * @param deadline how long each operation may take, more than zero and at most a day (rounded up to
     *                 whole milliseconds)
     * @return a view of this channel whose operations carry the deadline
     */
    RdmaChannel withDeadline(Duration deadline);

    /**
     * Whether the channel is open.
     *
     * @return true until it starts closing (locally, or because of the peer or an error)
     */
    boolean isOpen();

    /**
     * Completes when the channel is closed.
     *
     * @return completes with null after a local close, else with the cause as value
     */
    CompletableFuture<Throwable> closeFuture();

    /**
     * What the channel did so far: messages and bytes each way, operations, stalls, errors (also after close).
     *
     * @return a snapshot of the counters
     */
    ChannelCounters counters();

    /**
     * Closes gracefully: new operations are refused, queued ones fail, posted ones complete (or fail
     * once the peer is found dead), then the connection is torn down. Idempotent, never blocks.
     */
    @Override
    void close();
}
