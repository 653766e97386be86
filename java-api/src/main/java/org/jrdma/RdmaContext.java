package org.jrdma;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * An opened RDMA device with its protection domain, completion queue and event-loop thread.
 * Create one per device with {@link Rdma#open(RdmaConfig)}; it is thread-safe. Closing closes
 * everything created from it first (buffers, later channels), is idempotent and may be called
 * from any thread.
 */
public interface RdmaContext extends AutoCloseable {
    RdmaConfig config();

    /** The device chosen by the configuration's rules. */
    RdmaDevice device();

    /** The port chosen. */
    RdmaPort port();

    /** The source GID index chosen. */
    int gidIndex();

    /** The path MTU in bytes. */
    int mtu();

    /**
     * Registers a direct buffer's remaining bytes (position to limit). Heap buffers and read-only
     * buffers are rejected. The buffer is referenced until the registration is closed.
     *
     * @throws RegistrationException when verbs refuses (errno inside; memlock limit named)
     */
    RegisteredBuffer register(ByteBuffer buffer, Access... access);

    /** A registered buffer of at least {@code size} bytes from the context's pool; close returns it to the pool. */
    RegisteredBuffer allocate(int size, Access... access);

    /**
     * The sums of the counters of this context's channels, open and closed (also as the JMX MXBean
     * {@code org.jrdma:type=Context,device=<name>,id=<hex>} while the context lives).
     */
    ChannelCounters counters();

    /**
     * Listens for connections on an address of this context's device (port 0 picks a free port).
     * Each accepted channel gets {@code handler}.
     */
    RdmaServer listen(InetSocketAddress address, ChannelHandler handler);

    /**
     * Listens with an admission policy: each incoming connection is decided by {@code policy} (its
     * address and connect data) before anything is set up for it; refused clients get the policy's
     * code and reason ({@link AdmissionRefusedException}).
     */
    RdmaServer listen(InetSocketAddress address, ChannelHandler handler, AdmissionPolicy policy);

    /** Connects to a listening jrdma endpoint; the future fails with a {@link ConnectionException} subclass. */
    CompletableFuture<RdmaChannel> connect(InetSocketAddress remote, ChannelHandler handler);

    /** Connects from a given local address (which selects the device, e.g. one of several RoCE ports). */
    CompletableFuture<RdmaChannel> connect(InetSocketAddress remote, InetAddress local, ChannelHandler handler);

    /**
     * Connects with connect data for the server's {@link AdmissionPolicy} (at most
     * {@link ConnectionRequest#MAX_DATA} bytes, sent in the clear); {@code local} may be null.
     */
    CompletableFuture<RdmaChannel> connect(InetSocketAddress remote, InetAddress local, ChannelHandler handler,
                                           byte[] connectData);

    /** Called on the event-loop thread for each device async event; must not block. */
    void addAsyncEventListener(Consumer<AsyncEvent> listener);

    /** Why the context failed (a fatal async event), or null. */
    Throwable failure();

    boolean isClosed();

    @Override
    void close();
}
