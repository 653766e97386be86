package org.jrdma.keyed;

import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;
import org.jrdma.Access;
import org.jrdma.ChannelHandler;
import org.jrdma.ProtocolException;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaClosedException;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaException;
import org.jrdma.RdmaMessage;
import org.jrdma.RegisteredBuffer;
import org.jrdma.RemoteBuffer;

/**
 * Keyed transfers over one channel (TensorFlow's verbs transport; docs/keyed.md), both ways: this
 * side fetches values its peer published, and answers its peer's fetches from a {@link KeyedStore}.
 * A fetch sends the key and a token of the destination; the producer writes the value straight into
 * it (RDMA WRITE) and then says DONE with the length and metadata — at once if the value is
 * published, or the moment it is. Many fetches may be in flight, matched by id. Built on the public
 * API only; the channel carries keyed messages only (this sets its handler). Thread-safe.
 */
public final class KeyedChannel implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("org.jrdma.keyed");

    /** A fetch of this side waiting for its answer. */
    private static final class Pending {
        final TransferKey key;
        final RegisteredBuffer destination;
        final int offset;
        final int length;
        final RegisteredBuffer window; // a registration of the destination for this fetch only, or null
        final FetchFuture future;
        final boolean retried;
        boolean cancelSent;        // guarded by pending: a CANCEL is out (the deadline's or the caller's)
        boolean cancelledByCaller; // guarded by pending

        Pending(TransferKey key, RegisteredBuffer destination, int offset, int length, RegisteredBuffer window,
                FetchFuture future, boolean retried) {
            this.key = key;
            this.destination = destination;
            this.offset = offset;
            this.length = length;
            this.window = window;
            this.future = future;
            this.retried = retried;
        }
    }

    /**
     * What {@link #fetch} returns. Cancelling it asks the producer to drop the fetch rather than
     * pretending the destination is free at once: it completes cancelled only when the producer
     * confirmed that it writes nothing more (or the channel is gone).
     */
    private static final class FetchFuture extends CompletableFuture<Fetched> {
        private final KeyedChannel owner;
        private volatile long id; // the current attempt's (a retry into a larger destination is another)

        FetchFuture(KeyedChannel owner) {
            this.owner = owner;
        }

        /**
         * Asks the producer to drop the fetch; returns false, as the fetch is not cancelled yet: the
         * future completes cancelled once the producer confirmed, or normally if the value was already
         * on its way.
         */
        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            if (!isDone()) {
                owner.cancelByCaller(id);
            }
            return false;
        }

        void confirmCancelled() {
            super.cancel(false);
        }
    }

    private final RdmaContext context;
    private final RdmaChannel channel;
    private final KeyedStore store;
    private final KeyedOptions options;
    private final AtomicLong nextId = new AtomicLong();
    private final AtomicInteger parked = new AtomicInteger(); // this peer's fetches waiting in the store
    private final Map<Long, Pending> pending = new HashMap<>(); // guarded by itself
    private boolean closed;        // guarded by pending
    private Throwable closeCause; // guarded by pending; null after a local close

    private KeyedChannel(RdmaContext context, RdmaChannel channel, KeyedStore store, KeyedOptions options) {
        this.context = context;
        this.channel = channel;
        this.store = store;
        this.options = options;
    }

    /**
     * Makes {@code channel} (of {@code context}) a keyed channel answering from {@code store} (null: it
     * only fetches). Call it before the peer sends keyed messages: on a server, from the handler's
     * {@code onOpen} ({@link #accepting}); on a client, right after the connect completed.
     *
     * @param context the context the channel belongs to (destinations are registered with it)
     * @param channel an open channel
     * @param store   what this side answers from (null: nothing; it only fetches)
     * @param options the bounds of what the peer may ask
     * @return the keyed channel
     */
    public static KeyedChannel attach(RdmaContext context, RdmaChannel channel, KeyedStore store, KeyedOptions options) {
        KeyedChannel keyed = new KeyedChannel(Objects.requireNonNull(context, "context"), Objects.requireNonNull(channel, "channel"),
                store == null ? new KeyedStore() : store, Objects.requireNonNull(options, "options"));
        channel.setHandler(keyed.handler());
        channel.closeFuture().whenComplete((cause, t) -> keyed.closed(cause));
        return keyed;
    }

    /**
     * A server's handler: every accepted channel becomes a keyed channel, handed to {@code accepted}.
     *
     * @param context  the server's context
     * @param store    what the server answers from
     * @param options  the bounds of what peers may ask
     * @param accepted receives each keyed channel (on the event-loop thread; must not block)
     * @return the handler to listen with
     */
    public static ChannelHandler accepting(RdmaContext context, KeyedStore store, KeyedOptions options,
                                           Consumer<KeyedChannel> accepted) {
        return new ChannelHandler() {
            @Override
            public void onOpen(RdmaChannel channel) {
                accepted.accept(attach(context, channel, store, options));
            }

            @Override
            public void onMessage(RdmaChannel channel, RdmaMessage message) {
                // attach() replaced this handler before any message was delivered
            }
        };
    }

    /**
     * The channel underneath.
     *
     * @return the channel
     */
    public RdmaChannel channel() {
        return channel;
    }

    /**
     * Fetches the value of {@code key} into the whole destination.
     *
     * @param key         name and step
     * @param destination where the bytes go
     * @return completes with the value's length and metadata (see the other fetch)
     */
    public CompletableFuture<Fetched> fetch(TransferKey key, RegisteredBuffer destination) {
        return fetch(key, destination, 0, destination.length());
    }

    /**
     * Fetches the value of {@code key} into bytes [offset, offset + length) of the destination. A
     * destination registered with {@link Access#REMOTE_WRITE} is written through its own token; any
     * other is registered for this fetch alone (its token dies when the fetch completes). Completes
     * once the bytes are there; fails with {@link DestinationTooSmallException} (the needed size),
     * {@link FetchTimeoutException}, {@link FetchCancelledException} or the channel's close cause.
     * {@code cancel} on the returned future asks the producer to drop the fetch: the future is
     * cancelled once the producer confirmed (from then on nothing is written into the destination),
     * or completes normally if the value was already on its way.
     *
     * @param key         name and step
     * @param destination where the bytes go
     * @param offset      where in {@code destination}
     * @param length      room for the value
     * @return completes with the value's length and metadata
     */
    public CompletableFuture<Fetched> fetch(TransferKey key, RegisteredBuffer destination, int offset, int length) {
        Objects.requireNonNull(key, "key");
        if (offset < 0 || length < 0 || offset > destination.length() || length > destination.length() - offset) {
            throw new IllegalArgumentException("range [" + offset + ", " + offset + "+" + length + ") outside the buffer of "
                    + destination.length() + " bytes");
        }
        return start(key, destination, offset, length, new FetchFuture(this), false);
    }

    private CompletableFuture<Fetched> start(TransferKey key, RegisteredBuffer destination, int offset, int length,
                                             FetchFuture future, boolean retried) {
        RegisteredBuffer window = null;
        RemoteBuffer token;
        if (destination.access().contains(Access.REMOTE_WRITE)) {
            token = new RemoteBuffer(destination.address() + offset, length, destination.rkey());
        } else {
            ByteBuffer bytes = destination.buffer().limit(offset + Math.max(length, 1)).position(offset).slice();
            window = context.register(bytes, Access.REMOTE_WRITE);
            token = window.remote();
        }
        long id = nextId.getAndIncrement();
        future.id = id;
        Pending p = new Pending(key, destination, offset, length, window, future, retried);
        synchronized (pending) {
            if (closed) {
                release(p);
                future.completeExceptionally(closedException());
                return future;
            }
            pending.put(id, p);
        }
        send(KeyedWire.FETCH_HEADER + TransferKey.MAX_NAME_BYTES,
                out -> KeyedWire.encodeFetch(out, id, key, token, options.validateData()));
        afterTimeout(future, () -> deadline(id));
        return future;
    }

    /**
     * Runs {@code action} once the fetch timeout passed, unless {@code fetch} completed first: then the
     * timer is dropped with it, so a completed fetch keeps nothing (this channel, its context) alive
     * for the rest of the timeout.
     */
    private void afterTimeout(CompletableFuture<Fetched> fetch, Runnable action) {
        CompletableFuture<Void> timer = new CompletableFuture<>();
        timer.completeOnTimeout(null, options.fetchTimeoutMillis(), TimeUnit.MILLISECONDS).thenRun(action);
        fetch.whenComplete((v, t) -> timer.cancel(false));
    }

    /** No answer yet: ask the producer to drop the fetch (unless the caller did already). */
    private void deadline(long id) {
        FetchFuture future;
        synchronized (pending) {
            Pending p = pending.get(id);
            if (p == null || p.cancelSent) {
                return; // answered, or a CANCEL is out with its own wait for the confirmation
            }
            p.cancelSent = true;
            future = p.future;
        }
        sendCancel(id, future);
    }

    /** The caller cancelled the fetch's future: ask the producer to drop it. */
    private void cancelByCaller(long id) {
        boolean send;
        FetchFuture future;
        synchronized (pending) {
            Pending p = pending.get(id);
            if (p == null || p.cancelledByCaller) {
                return;
            }
            p.cancelledByCaller = true;
            send = !p.cancelSent;
            p.cancelSent = true;
            future = p.future;
        }
        if (send) {
            sendCancel(id, future);
        }
    }

    /** A CANCEL, and the channel goes if the producer neither answers nor confirms within the timeout. */
    private void sendCancel(long id, FetchFuture future) {
        send(KeyedWire.REPLY_HEADER, out -> KeyedWire.encodeShort(out, KeyedWire.CANCEL, id, 0));
        afterTimeout(future, () -> {
            synchronized (pending) {
                if (!pending.containsKey(id)) {
                    return;
                }
            }
            LOG.log(Level.WARNING, "the producer at " + channel.remoteAddress() + " confirmed no cancel of fetch " + id
                    + " within " + options.fetchTimeoutMillis() + " ms; closing the channel");
            channel.close(); // its queue pair goes: nothing more can be written into the destination
        });
    }

    @Override
    public void close() {
        channel.close();
    }

    // ---- messages (the channel's event-loop thread) -----------------------------------------------

    private ChannelHandler handler() {
        return new ChannelHandler() {
            @Override
            public void onMessage(RdmaChannel ch, RdmaMessage message) {
                ByteBuffer payload = message.payload();
                try {
                    byte type = payload.remaining() > 0 ? payload.get(0) : 0;
                    if (type == KeyedWire.FETCH) {
                        onFetch(KeyedWire.decodeFetch(payload));
                    } else {
                        onReply(KeyedWire.decodeReply(payload));
                    }
                } catch (ProtocolException violation) {
                    // Once: messages already queued behind the first violation arrive while it closes.
                    LOG.log(channel.isOpen() ? Level.WARNING : Level.DEBUG, "closing the keyed channel to "
                            + channel.remoteAddress() + ": " + violation.getMessage());
                    channel.close();
                }
            }
        };
    }

    private void onFetch(KeyedWire.Fetch fetch) {
        if (parked.get() >= options.maxWaitingFetches()) {
            throw new ProtocolException("more than " + options.maxWaitingFetches() + " fetches waiting for values not published");
        }
        parked.incrementAndGet();
        KeyedStore.Value value = store.valueOrWait(this, fetch);
        if (value != null) {
            parked.decrementAndGet();
            serve(fetch, value);
        }
    }

    /** A waiting fetch of this channel left the store (answered, cancelled). */
    void parkedGone() {
        parked.decrementAndGet();
    }

    /** Answers a fetch: the bytes written into its destination, then DONE; or why not. Any thread. */
    void serve(KeyedWire.Fetch fetch, KeyedStore.Value value) {
        long id = fetch.id();
        if (value.error() != null) {
            send(KeyedWire.REPLY_HEADER + value.error().length, out -> KeyedWire.encodeError(out, id, value.error()));
            return;
        }
        if (!value.dead() && value.length() > fetch.destination().length()) {
            send(KeyedWire.REPLY_HEADER, out -> KeyedWire.encodeShort(out, KeyedWire.TOO_SMALL, id, value.length()));
            return;
        }
        if (!value.dead() && value.length() > 0) {
            try {
                channel.write(value.buffer(), value.offset(), fetch.destination(), 0, value.length());
            } catch (RdmaException | IllegalStateException e) {
                LOG.log(Level.WARNING, "the value of " + fetch.key() + " was closed while published; fetch dropped", e);
                cancelled(id, KeyedWire.CANCELLED_CLEANUP);
                return;
            }
        }
        // After the WRITE on the same queue pair: the consumer sees DONE only once the bytes are there.
        long checksum = fetch.checksum() && !value.dead() ? KeyedWire.checksum(value.buffer().buffer(), value.offset(),
                value.length()) : -1;
        send(KeyedWire.REPLY_HEADER + value.metadata().length + 4,
                out -> KeyedWire.encodeDone(out, id, value.length(), value.metadata(), value.dead(), checksum));
    }

    void cancelled(long id, int reason) {
        send(KeyedWire.REPLY_HEADER, out -> KeyedWire.encodeShort(out, KeyedWire.CANCELLED, id, reason));
    }

    private void onReply(KeyedWire.Reply reply) {
        if (reply.type() == KeyedWire.CANCEL) { // the consumer gave up; confirm unless it is being answered
            if (store.dropWaiting(this, reply.id())) {
                parked.decrementAndGet();
                cancelled(reply.id(), KeyedWire.CANCELLED_ON_REQUEST);
            }
            return;
        }
        Pending p;
        synchronized (pending) {
            p = pending.remove(reply.id());
        }
        if (p == null) {
            throw new ProtocolException("a keyed answer to fetch " + reply.id() + ", which is not waiting");
        }
        release(p);
        switch (reply.type()) {
            case KeyedWire.DONE:
                if (reply.length() > p.length) {
                    p.future.completeExceptionally(new ProtocolException("DONE of " + reply.length() + " bytes for a destination of " + p.length));
                    throw new ProtocolException("a DONE longer than its destination");
                }
                if (options.validateData() && !reply.dead()) {
                    long landed = KeyedWire.checksum(p.destination.buffer(), p.offset, reply.length());
                    if (reply.checksum() != landed) {
                        p.future.completeExceptionally(new DataValidationException("the " + reply.length()
                                + " bytes of " + p.key + " that landed have CRC-32C " + Long.toHexString(landed)
                                + "; the producer's is " + (reply.checksum() < 0 ? "missing" : Long.toHexString(reply.checksum()))));
                        return;
                    }
                }
                p.future.complete(new Fetched(p.key, p.destination, p.offset, reply.length(), reply.metadata(), reply.dead()));
                return;
            case KeyedWire.TOO_SMALL:
                if (p.cancelledByCaller) {
                    p.future.confirmCancelled();
                    return;
                }
                if (options.retryTooSmall() && !p.retried) {
                    RegisteredBuffer larger = context.allocate(reply.length(), Access.REMOTE_WRITE);
                    start(p.key, larger, 0, reply.length(), p.future, true);
                    return;
                }
                p.future.completeExceptionally(new DestinationTooSmallException("the value of " + p.key + " has "
                        + reply.length() + " bytes; the destination " + p.length, reply.length()));
                return;
            case KeyedWire.ERROR:
                // Text from the peer, decoded leniently (a malformed sequence becomes U+FFFD).
                p.future.completeExceptionally(new FetchFailedException("the producer could not make the value of "
                        + p.key + ": " + new String(reply.metadata(), StandardCharsets.UTF_8),
                        new String(reply.metadata(), StandardCharsets.UTF_8)));
                return;
            default:
                if (p.cancelledByCaller) {
                    p.future.confirmCancelled(); // the producer dropped it: nothing more is written
                    return;
                }
                p.future.completeExceptionally(reply.reason() == KeyedWire.CANCELLED_ON_REQUEST
                        ? new FetchTimeoutException("no value for " + p.key + " within " + options.fetchTimeoutMillis() + " ms")
                        : new FetchCancelledException("the producer dropped the fetch of " + p.key + " (its step was cleaned up)"));
        }
    }

    private static void release(Pending p) {
        if (p.window != null) {
            p.window.close();
        }
    }

    /** Sends one keyed message from a pooled buffer of at most {@code capacity} bytes. */
    private void send(int capacity, ToIntFunction<ByteBuffer> encoder) {
        RegisteredBuffer out;
        try {
            out = context.allocate(capacity);
        } catch (RdmaException closing) {
            return; // the context is closing: the channel goes with it
        }
        int length = encoder.applyAsInt(out.buffer());
        channel.send(out, 0, length).whenComplete((v, t) -> out.close());
    }

    private RdmaClosedException closedException() {
        String text = "keyed channel to " + channel.remoteAddress() + " is closed";
        return closeCause == null ? new RdmaClosedException(text) : new RdmaClosedException(text + ": " + closeCause.getMessage(), closeCause);
    }

    /** The channel closed (cause null: locally): every fetch waiting fails, the store forgets this peer. */
    private void closed(Throwable cause) {
        List<Pending> failed;
        synchronized (pending) {
            closed = true;
            closeCause = cause;
            failed = new ArrayList<>(pending.values());
            pending.clear();
        }
        store.forget(this);
        RdmaClosedException e = closedException();
        for (Pending p : failed) {
            release(p);
            if (p.cancelledByCaller) {
                p.future.confirmCancelled(); // the queue pair is gone: nothing more is written
            } else {
                p.future.completeExceptionally(e);
            }
        }
    }
}
