package org.jrdma.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelOutboundBuffer;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaContext;
import org.jrdma.RegisteredBuffer;

/**
 * A channel's outbound bytes, sent in order: small writes are coalesced into messages of up to the
 * eager payload (one copy into a pooled registered buffer, one send), a large write goes in chunks of
 * up to {@link #LARGE_CHUNK} by rendezvous — the peer reads it straight from the buffer when it lies in
 * the context's registered memory ({@link RegisteredByteBufAllocator}, the channel's default allocator),
 * else from a registered copy. A write's promise completes once its bytes are copied or handed on, as a
 * socket's write completes once the kernel has them; what is handed on but not yet acknowledged is
 * bounded by {@link #IN_FLIGHT_LIMIT}, beyond which the rest waits in Netty's outbound buffer (which
 * makes the channel unwritable at its high-water mark).
 */
final class RegisteredWrites {
    /** Bytes sent but not yet acknowledged by the peer, at most (about two rendezvous chunks in flight and a queue of small ones). */
    static final int IN_FLIGHT_LIMIT = 4 << 20;
    /** The largest message one write is cut into: big enough that a rendezvous' round trip is small beside its transfer. */
    static final int LARGE_CHUNK = 1 << 20;

    /** Told of each message once the peer has it or it failed; called on the thread that drives the context. */
    interface Sent {
        void sent(int bytes, Throwable failure);
    }

    private final RegisteredByteBufAllocator allocator;
    private final RdmaContext context;
    private final RdmaChannel channel;
    private final Sent sent;
    private final int eagerPayload;
    private final int largeChunk;
    private long inFlight;
    private long sentInPlace;

    RegisteredWrites(RegisteredByteBufAllocator allocator, RdmaChannel channel, Sent sent) {
        this.allocator = allocator;
        this.context = allocator.context();
        this.channel = channel;
        this.sent = sent;
        this.eagerPayload = context.config().eagerSize() - 16;
        this.largeChunk = Math.min(LARGE_CHUNK, channel.maxMessageSize());
    }

    /**
     * Sends what {@code in} holds, as far as the in-flight bound allows (channel's loop only).
     *
     * @return true when {@code in} is empty, false when the bound stopped it: call again after {@link #acknowledged}
     */
    boolean write(ChannelOutboundBuffer in) {
        while (inFlight < IN_FLIGHT_LIMIT) {
            Object current = in.current();
            if (current == null) {
                return true;
            }
            ByteBuf head = (ByteBuf) current; // filterOutboundMessage lets only ByteBufs through
            if (!head.isReadable()) {
                in.remove();
                continue;
            }
            if (head.readableBytes() > eagerPayload) {
                RegisteredByteBuf.Region region = RegisteredByteBuf.regionOf(head, allocator);
                if (region != null) {
                    sendInPlace(in, head, region);
                    continue;
                }
            }
            int size = head.readableBytes() > eagerPayload ? Math.min(head.readableBytes(), largeChunk) : eagerPayload;
            RegisteredBuffer registered = context.allocate(size);
            int length = copy(in, registered.buffer(), size);
            inFlight += length;
            channel.send(registered, 0, length).whenComplete((done, failure) -> {
                registered.close();
                sent.sent(length, failure);
            });
        }
        return in.current() == null;
    }

    /** Sends the next chunk of {@code head} from the registered memory it lies in: no copy; the buffer is kept until the peer has read it. */
    private void sendInPlace(ChannelOutboundBuffer in, ByteBuf head, RegisteredByteBuf.Region region) {
        int length = Math.min(head.readableBytes(), largeChunk);
        head.retain();
        CompletableFuture<Void> send;
        try {
            send = channel.send(region.memory(), region.offset(), length);
        } catch (RuntimeException e) {
            head.release();
            throw e;
        }
        inFlight += length;
        sentInPlace += length;
        in.removeBytes(length); // completes the write's promise once its last chunk is handed on
        send.whenComplete((done, failure) -> {
            head.release();
            sent.sent(length, failure);
        });
    }

    /** The peer has {@code bytes} more (channel's loop only). */
    void acknowledged(int bytes) {
        inFlight -= bytes;
    }

    /** {@return the bytes sent straight from the buffers written, without a copy (channel's loop only)} */
    long sentInPlace() {
        return sentInPlace;
    }

    /** {@return the bytes in flight against the bound, and those sent without a copy (channel's loop only)} */
    String describe() {
        return "in flight " + inFlight + " B of " + IN_FLIGHT_LIMIT + ", sent in place " + sentInPlace + " B";
    }

    /** {@return whether the in-flight bound holds writes back} */
    boolean full() {
        return inFlight >= IN_FLIGHT_LIMIT;
    }

    /**
     * Copies up to {@code size} bytes from the head of {@code in} into {@code into} and removes them
     * from {@code in} (completing the promises of the writes it used up); a large write is sent alone.
     */
    private int copy(ChannelOutboundBuffer in, ByteBuffer into, int size) {
        int copied = 0;
        while (copied < size && in.current() instanceof ByteBuf buf) {
            int readable = buf.readableBytes();
            if (copied > 0 && readable > eagerPayload) {
                break;
            }
            int length = Math.min(readable, size - copied);
            buf.getBytes(buf.readerIndex(), into.slice(copied, length));
            in.removeBytes(length);
            copied += length;
        }
        return copied;
    }
}
