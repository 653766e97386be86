package org.jrdma.kv;

import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.jrdma.ChannelHandler;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaMessage;
import org.jrdma.RdmaServer;

/**
 * ps-lite's SimpleApp over jrdma (docs/kv.md): requests of a head (an int the applications agree on) and a
 * body (bytes), each answered with a body or a failure, matched to its request by id. An app listens, connects,
 * or both; requests travel both ways on every channel, so the side that accepted can ask the side that
 * connected ({@link SimpleRequest#sender()}, {@link #peers()}). Requests are handled on the context's
 * event-loop thread by the app's {@link SimpleRequestHandler}, which may answer later from any thread.
 * What arrives is checked before use: a malformed message, an answer nobody waits for or a body above
 * {@code maxBodyBytes} ends that channel only. A request whose channel closes fails with the cause. Built on
 * the public API.
 */
public final class SimpleApp implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("org.jrdma.kv");
    /** The largest body by default: 1 MiB (a larger one goes by rendezvous as any message does). */
    public static final int DEFAULT_MAX_BODY_BYTES = 1 << 20;

    final RdmaContext context;
    private final SimpleRequestHandler handler;
    private final int maxBodyBytes;
    private final RdmaServer server; // null: the app only connects
    private final Map<RdmaChannel, SimplePeer> peers = new ConcurrentHashMap<>();
    private final ChannelHandler channels = new Channels();
    private volatile boolean closed;

    private SimpleApp(RdmaContext context, InetSocketAddress address, SimpleRequestHandler handler, int maxBodyBytes) {
        if (maxBodyBytes < 0 || maxBodyBytes > Integer.MAX_VALUE - SimpleWire.HEADER) {
            throw new IllegalArgumentException("maxBodyBytes " + maxBodyBytes + " is not between 0 and "
                    + (Integer.MAX_VALUE - SimpleWire.HEADER));
        }
        this.context = Objects.requireNonNull(context, "context");
        this.handler = Objects.requireNonNull(handler, "handler");
        this.maxBodyBytes = maxBodyBytes;
        this.server = address == null ? null : context.listen(address, channels);
    }

    /**
     * An app that accepts connections at {@code address} and connects where asked.
     *
     * @param context      the context whose device it listens on
     * @param address      an address of that device (port 0 picks a free one)
     * @param handler      answers the requests that arrive
     * @param maxBodyBytes the largest body this app sends or takes (a larger one that arrives ends its channel)
     * @return the listening app
     */
    public static SimpleApp listen(RdmaContext context, InetSocketAddress address, SimpleRequestHandler handler,
                                   int maxBodyBytes) {
        return new SimpleApp(context, Objects.requireNonNull(address, "address"), handler, maxBodyBytes);
    }

    /**
     * An app that only connects (its peers may still ask it: {@code handler} answers).
     *
     * @param context      the context it connects from
     * @param handler      answers the requests that arrive ({@link SimpleRequestHandler#refuseAll()} for none)
     * @param maxBodyBytes the largest body this app sends or takes
     * @return the app
     */
    public static SimpleApp open(RdmaContext context, SimpleRequestHandler handler, int maxBodyBytes) {
        return new SimpleApp(context, null, handler, maxBodyBytes);
    }

    /**
     * Connects to another app.
     *
     * @param remote where it listens
     * @param local  the address to connect from (its device's), or null for the route's choice
     * @return the peer, once the channel is open
     */
    public CompletableFuture<SimplePeer> connect(InetSocketAddress remote, InetAddress local) {
        if (closed) {
            return CompletableFuture.failedFuture(new KvException("the SimpleApp is closed"));
        }
        return context.connect(remote, local, channels).thenApply(channel -> {
            SimplePeer peer = peerOf(channel);
            if (!channel.isOpen()) { // closed before this ran: its onClose may have come first
                peers.remove(channel);
                peer.onClose(channel.closeFuture().getNow(null));
            }
            return peer;
        });
    }

    /**
     * Asks several peers the same (ps-lite's Request to a group).
     *
     * @param to   the peers
     * @param head what is asked
     * @param body the request's body
     * @return every answer, in the order of {@code to}; fails with the first failure once all are done
     */
    public static CompletableFuture<List<byte[]>> requestAll(Collection<SimplePeer> to, int head, byte[] body) {
        List<CompletableFuture<byte[]>> asked = new ArrayList<>();
        for (SimplePeer peer : to) {
            asked.add(peer.request(head, body));
        }
        return CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new))
                .thenApply(all -> asked.stream().map(CompletableFuture::join).toList());
    }

    /**
     * The peers of the channels open now, connected and accepted.
     *
     * @return a snapshot
     */
    public List<SimplePeer> peers() {
        return peers.values().stream().filter(SimplePeer::isOpen).toList();
    }

    /**
     * Where the app listens.
     *
     * @return the address, or null for an app that only connects
     */
    public InetSocketAddress localAddress() {
        return server == null ? null : server.localAddress();
    }

    /**
     * The largest body the app sends or takes.
     *
     * @return bytes
     */
    public int maxBodyBytes() {
        return maxBodyBytes;
    }

    /** Stops: the listener and every channel close; requests still waiting fail. */
    @Override
    public void close() {
        closed = true;
        if (server != null) {
            server.close();
        }
        peers.values().forEach(SimplePeer::close);
    }

    void checkBody(byte[] body) {
        Objects.requireNonNull(body, "body");
        if (body.length > maxBodyBytes) {
            throw new IllegalArgumentException("a body of " + body.length + " bytes; this SimpleApp takes at most "
                    + maxBodyBytes + " (maxBodyBytes)");
        }
    }

    /** A request arrived (loop thread): the handler answers it; one that throws has it failed with its text. */
    void handle(SimpleRequest request) {
        try {
            handler.onRequest(request);
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "the SimpleApp's handler threw on request " + request.head(), e);
            if (!request.answered()) {
                request.fail("the handler threw " + e);
            }
        }
    }

    private SimplePeer peerOf(RdmaChannel channel) {
        return peers.computeIfAbsent(channel, c -> new SimplePeer(this, c));
    }

    private final class Channels implements ChannelHandler {
        @Override
        public void onOpen(RdmaChannel channel) {
            SimplePeer peer = peerOf(channel);
            if (closed) {
                peer.close(); // accepted or connected while the app closed
            }
        }

        @Override
        public void onMessage(RdmaChannel channel, RdmaMessage message) {
            KvWire.guarded(channel, "of SimpleApp peer", () -> peerOf(channel).onMessage(
                    SimpleWire.decode(message.payload(), maxBodyBytes)));
        }

        @Override
        public void onClose(RdmaChannel channel, Throwable cause) {
            SimplePeer peer = peers.remove(channel);
            if (peer != null) {
                peer.onClose(cause);
            }
        }
    }
}
