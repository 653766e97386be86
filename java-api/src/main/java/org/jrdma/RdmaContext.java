package org.jrdma;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * An opened RDMA device with its protection domain, completion queue and event-loop thread.
 * Create one per device with {@link Rdma#open(RdmaConfig)}; it is thread-safe. Closing closes
 * everything created from it first (buffers, later channels), is idempotent and may be called
 * from any thread.
 */
public interface RdmaContext extends AutoCloseable {
    /**
     * The configuration this context was opened with.
     *
     * @return the configuration
     */
    RdmaConfig config();

    /**
     * What carries this context's channels: the configuration's choice, or what {@link Transport#AUTO} chose
     * (then {@link Transport#TCP} shares memory with peers on the same host that can; a channel's
     * {@code toString()} says which it uses).
     *
     * @return {@link Transport#VERBS}, {@link Transport#TCP} or {@link Transport#SHM}
     */
    Transport transport();

    /**
     * The device chosen by the configuration's rules. Over {@link Transport#TCP} and {@link Transport#SHM}:
     * a device named {@code tcp} or {@code shm} with one active Ethernet port, GID index 0 and MTU 0 (none
     * of them applies).
     *
     * @return the device, with its ports as they were at open
     */
    RdmaDevice device();

    /**
     * The port chosen.
     *
     * @return the port channels of this context use
     */
    RdmaPort port();

    /**
     * The source GID index chosen.
     *
     * @return the GID index of {@link #port()} that channels use
     */
    int gidIndex();

    /**
     * The path MTU in bytes.
     *
     * @return the MTU channels of this context use
     */
    int mtu();

    /**
     * Registers a direct buffer's remaining bytes (position to limit). Heap buffers and read-only
     * buffers are rejected. The buffer is referenced until the registration is closed.
     *
     * @param buffer a direct, writable buffer
     * @param access the remote rights to grant (none: local access only)
     * @return the registration; close it to deregister
     * @throws RegistrationException when verbs refuses (errno inside; memlock limit named)
     */
    RegisteredBuffer register(ByteBuffer buffer, Access... access);

    /**
     * A registered buffer of at least {@code size} bytes from the context's pool; close returns it to the pool.
     *
     * @param size   bytes needed (positive)
     * @param access the remote rights to grant (none: local access only); a buffer with remote rights
     *               gets a registration of exactly its bytes
     * @return the buffer
     */
    RegisteredBuffer allocate(int size, Access... access);

    /**
     * The sums of the counters of this context's channels, open and closed (also as the JMX MXBean
     * {@code org.jrdma:type=Context,device=<name>,id=<hex>} while the context lives).
     *
     * @return a snapshot of the sums
     */
    ChannelCounters counters();

    /**
     * The operations of this context's channels that failed, by status: the work completion status
     * ({@code REM_ACCESS_ERR}, {@code RETRY_EXC_ERR}, {@code WR_FLUSH_ERR}, ...) or how a rendezvous
     * send ended ({@code PEER_BUFFER_TOO_SMALL}, ...). Counted for the context's lifetime.
     *
     * @return a snapshot, sorted by status name; statuses that never occurred are absent
     */
    Map<String, Long> operationErrors();

    /**
     * The counters the device keeps for this context's port, read now from sysfs: the InfiniBand port
     * counters ({@code port_xmit_data}, ...) and the driver's ({@code sent_pkts}, {@code rdma_sends},
     * {@code retry_exceeded_err} on Soft-RoCE, ...; prefixed {@code hw_} where a name is taken).
     *
     * @return the counters by name; empty when the device shows none
     */
    Map<String, Long> deviceCounters();

    /**
     * Listens for connections on an address of this context's device (port 0 picks a free port).
     * Each accepted channel gets {@code handler}.
     *
     * @param address an address of this context's device
     * @param handler the handler of every accepted channel
     * @return the listener; close it to stop accepting
     */
    RdmaServer listen(InetSocketAddress address, ChannelHandler handler);

    /**
     * Listens with an admission policy: each incoming connection is decided by {@code policy} (its
     * address and connect data) before anything is set up for it; refused clients get the policy's
     * code and reason ({@link AdmissionRefusedException}).
     *
     * @param address an address of this context's device
     * @param handler the handler of every accepted channel
     * @param policy  decides on each connection request, on the event-loop thread
     * @return the listener; close it to stop accepting (requests still waiting are refused)
     */
    RdmaServer listen(InetSocketAddress address, ChannelHandler handler, AdmissionPolicy policy);

    /**
     * Connects to a listening jrdma endpoint.
     *
     * @param remote  the listener's address
     * @param handler the channel's handler
     * @return completes with the open channel, or fails with a {@link ConnectionException} subclass
     */
    CompletableFuture<RdmaChannel> connect(InetSocketAddress remote, ChannelHandler handler);

    /**
     * Connects from a given local address (which selects the device, e.g. one of several RoCE ports).
     *
     * @param remote  the listener's address
     * @param local   the address to connect from (null: over verbs this context's device, by its GID's address;
     *                over TCP and shared memory the route's choice)
     * @param handler the channel's handler
     * @return completes with the open channel, or fails with a {@link ConnectionException} subclass
     */
    CompletableFuture<RdmaChannel> connect(InetSocketAddress remote, InetAddress local, ChannelHandler handler);

    /**
     * Connects with connect data for the server's {@link AdmissionPolicy} (at most
     * {@link ConnectionRequest#MAX_DATA} bytes, sent in the clear); {@code local} may be null.
     *
     * @param remote      the listener's address
     * @param local       the address to connect from (null: over verbs this context's device, by its GID's address;
     *                    over TCP and shared memory the route's choice)
     * @param handler     the channel's handler
     * @param connectData what the server's policy sees ({@link ConnectionRequest#data()})
     * @return completes with the open channel, or fails with a {@link ConnectionException} subclass
     *         ({@link AdmissionRefusedException} when the policy refuses)
     */
    CompletableFuture<RdmaChannel> connect(InetSocketAddress remote, InetAddress local, ChannelHandler handler,
                                           byte[] connectData);

    /**
     * Adds a listener for the device's async events (port up/down, fatal errors).
     *
     * @param listener called on the event-loop thread for each event; must not block
     */
    void addAsyncEventListener(Consumer<AsyncEvent> listener);

    /**
     * Drives a context opened with {@link PollMode#CALLER} on the calling thread: handles what is
     * ready — completions, messages, connection events, tasks — running their callbacks on this
     * thread, and when nothing is, waits for something up to {@code timeout} (spinning briefly
     * first, as {@link PollMode#ADAPTIVE} does; 0 does not wait). A single-threaded program sends and
     * then calls this until its answer came: one thread per side, as perftest; an event loop of its
     * own (Netty's) calls it on its thread. One thread drives a context at a time.
     *
     * @param timeout how long to wait when nothing is ready
     * @param unit the timeout's unit
     * @return how many events and tasks it handled; 0 when the timeout passed or {@link #wakeup()}
     *     ended the wait
     * @throws IllegalStateException when the context has a loop thread of its own (another poll
     *     mode), another thread is driving it now, or a callback of this call calls it
     * @throws RdmaClosedException once the context is closed
     */
    int progress(long timeout, TimeUnit unit);

    /** Ends a {@link #progress} wait soon; from any thread (its caller has other work, or should stop). */
    void wakeup();

    /**
     * Why the context failed.
     *
     * @return the cause (a fatal async event), or null while the context is healthy
     */
    Throwable failure();

    /**
     * Whether the context is closed.
     *
     * @return true once it is closed; nothing new can be created from it then
     */
    boolean isClosed();

    /** Closes every channel, listener and buffer of this context, then the device; idempotent, from any thread. */
    @Override
    void close();
}
