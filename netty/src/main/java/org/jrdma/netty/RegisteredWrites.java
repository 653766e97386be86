package org.jrdma.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelOutboundBuffer;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaContext;
import org.jrdma.RegisteredBuffer;

/**
 * A channel's outbound bytes, sent in order: the flushed writes that must be copied are gathered into
 * one message of up to {@link #LARGE_CHUNK} (one copy into a pooled registered buffer, one send: eager
 * when it fits the eager payload, else by rendezvous), so a program that writes a frame as a small header
 * and a larger body (HTTP/2, gRPC) sends a message per flush, not two per frame; a large write that lies
 * in the context's registered memory ({@link RegisteredByteBufAllocator}, the channel's default
 * allocator) goes on its own, in chunks of up to {@link #LARGE_CHUNK}, and the peer reads it straight
 * from the buffer. A write's promise completes once its bytes are copied or handed on, as a
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
    private long messages;
    private final Gathering gathering = new Gathering();

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
            int size = bytesToCopy(in);
            RegisteredBuffer registered = context.allocate(size);
            int length = copy(in, registered.buffer(), size);
            inFlight += length;
            messages++;
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
        messages++;
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

    /** {@return the messages handed to jrdma so far (channel's loop only)} */
    long messages() {
        return messages;
    }

    /** {@return the bytes in flight against the bound, and those sent without a copy (channel's loop only)} */
    String describe() {
        return "in flight " + inFlight + " B of " + IN_FLIGHT_LIMIT + ", sent in place " + sentInPlace + " B in "
                + messages + " messages";
    }

    /** {@return whether the in-flight bound holds writes back} */
    boolean full() {
        return inFlight >= IN_FLIGHT_LIMIT;
    }

    /**
     * The size of the next copied message: the flushed bytes from the head of {@code in} up to {@link
     * #largeChunk} and up to the first write after the head that is sent in place — when a write larger
     * than the eager payload is among them (that message goes by rendezvous anyway); otherwise the eager
     * payload, so that small writes keep travelling eagerly (a rendezvous costs a round trip more).
     */
    private int bytesToCopy(ChannelOutboundBuffer in) {
        gathering.total = 0;
        gathering.large = false;
        try {
            in.forEachFlushedMessage(gathering);
        } catch (Exception e) {
            throw new IllegalStateException("the outbound buffer holds only ByteBufs", e); // the processor throws nothing
        }
        return gathering.large ? (int) Math.min(gathering.total, largeChunk) : eagerPayload;
    }

    /** Sums the flushed writes that go into one copied message (one per channel, reused: no allocation per message). */
    private final class Gathering implements ChannelOutboundBuffer.MessageProcessor {
        long total;
        boolean large;

        @Override
        public boolean processMessage(Object message) {
            ByteBuf buf = (ByteBuf) message;
            if (total > 0 && sentInPlace(buf)) {
                return false;
            }
            large |= buf.readableBytes() > eagerPayload;
            total += buf.readableBytes();
            return total < largeChunk;
        }
    }

    private boolean sentInPlace(ByteBuf buf) {
        return buf.readableBytes() > eagerPayload && RegisteredByteBuf.regionOf(buf, allocator) != null;
    }

    /**
     * Copies up to {@code size} bytes from the head of {@code in} into {@code into} and removes them
     * from {@code in} (completing the promises of the writes it used up); a write sent in place is left for
     * a message of its own.
     */
    private int copy(ChannelOutboundBuffer in, ByteBuffer into, int size) {
        int copied = 0;
        while (copied < size && in.current() instanceof ByteBuf buf) {
            int readable = buf.readableBytes();
            if (copied > 0 && sentInPlace(buf)) {
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
