package org.jrdma.kv;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.jrdma.ChannelHandler;
import org.jrdma.ProtocolException;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaClosedException;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaMessage;
import org.jrdma.RdmaServer;

/**
 * A job's scheduler (ps-lite's scheduler node and Postoffice): servers and workers register with it
 * ({@link KvMember#join}) stating the job's size; once every one of them has, each gets its rank (by
 * role, in the order they registered) and the servers' addresses in rank order. Afterwards it keeps
 * the barriers of the groups ({@link KvGroup}). A node that leaves before the job is complete frees
 * its place; one that leaves after fails every barrier of its groups, those waiting and those to
 * come — nobody waits for a node that is gone. Nodes that disagree on the job's size, or come when
 * their role is full, are refused. Built on the public API.
 */
public final class KvScheduler implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("org.jrdma.kv");

    /** A registered node; its rank is given when the job is complete. */
    private static final class Node {
        final RdmaChannel channel;
        final KvRole role;
        final InetSocketAddress served;
        int rank = -1;

        Node(RdmaChannel channel, KvRole role, InetSocketAddress served) {
            this.channel = channel;
            this.role = role;
            this.served = served;
        }

        @Override
        public String toString() {
            return role.name().toLowerCase() + (rank >= 0 ? " " + rank : "") + " at " + channel.remoteAddress();
        }
    }

    /** A node waiting in a group's barrier, with the id its answer carries. */
    private record Waiting(Node node, long id) {
    }

    private final RdmaContext context;
    private final int workers;
    private final int servers;
    private final RdmaServer server;
    // Guarded by this (the handlers run on the loop thread, close on any).
    private final Map<RdmaChannel, Node> nodes = new LinkedHashMap<>();
    private final Map<KvGroup, List<Waiting>> barriers = new EnumMap<>(KvGroup.class);
    private final List<Node> departed = new ArrayList<>();
    private boolean complete;
    /** Set by close: the nodes learn that from their channels closing, not as departures of each other. */
    private boolean closing;
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private final CompletableFuture<Void> finished = new CompletableFuture<>();

    private KvScheduler(RdmaContext context, InetSocketAddress address, int workers, int servers) {
        this.context = context;
        this.workers = workers;
        this.servers = servers;
        for (KvGroup group : KvGroup.values()) {
            barriers.put(group, new ArrayList<>());
        }
        this.server = context.listen(address, handler());
    }

    /**
     * Starts a scheduler for a job of {@code workers} workers and {@code servers} servers.
     *
     * @param context the context it listens with
     * @param address where the job's nodes reach it (ps-lite's DMLC_PS_ROOT_URI and _PORT)
     * @param workers the job's workers (1..65536)
     * @param servers the job's servers (1..65536)
     * @return the listening scheduler
     * @throws IllegalArgumentException when a count is out of range
     */
    public static KvScheduler listen(RdmaContext context, InetSocketAddress address, int workers, int servers) {
        if (workers < 1 || servers < 1 || workers > KvJobWire.MAX_NODES || servers > KvJobWire.MAX_NODES) {
            throw new IllegalArgumentException("a job of " + workers + " workers and " + servers + " servers (1.."
                    + KvJobWire.MAX_NODES + " each)");
        }
        return new KvScheduler(context, address, workers, servers);
    }

    /**
     * Where the scheduler listens.
     *
     * @return the address nodes register at
     */
    public InetSocketAddress localAddress() {
        return server.localAddress();
    }

    /**
     * Completes once every node registered and got its rank; fails when the scheduler closes before.
     *
     * @return the job's start
     */
    public CompletableFuture<Void> ready() {
        return ready;
    }

    /**
     * Completes once the job started and every node left again (the job's end); fails when the
     * scheduler closes before.
     *
     * @return the job's end
     */
    public CompletableFuture<Void> finished() {
        return finished;
    }

    /**
     * The nodes registered now.
     *
     * @return how many
     */
    public synchronized int registered() {
        return nodes.size();
    }

    /** Stops: closes the listener and every node's channel (their joins and barriers fail). */
    @Override
    public void close() {
        server.close();
        List<RdmaChannel> open;
        synchronized (this) {
            closing = true;
            open = new ArrayList<>(nodes.keySet());
        }
        open.forEach(RdmaChannel::close);
        KvException closed = new KvException("the scheduler at " + server.localAddress() + " closed");
        ready.completeExceptionally(closed);
        finished.completeExceptionally(closed);
    }

    private ChannelHandler handler() {
        return new ChannelHandler() {
            @Override
            public void onMessage(RdmaChannel channel, RdmaMessage message) {
                ByteBuffer in = KvWire.le(message.payload());
                KvWire.guarded(channel, "of node", () -> {
                    byte type = in.remaining() > 0 ? in.get(0) : 0;
                    if (type == KvJobWire.REGISTER) {
                        register(channel, in);
                    } else if (type == KvJobWire.BARRIER) {
                        barrier(channel, in);
                    } else {
                        throw new ProtocolException("an unknown scheduler message type " + type);
                    }
                });
            }

            @Override
            public void onClose(RdmaChannel channel, Throwable cause) {
                left(channel, cause);
            }
        };
    }

    private synchronized void register(RdmaChannel channel, ByteBuffer in) {
        KvJobWire.requireHeader(in, "registration", KvJobWire.REGISTER_SIZE, true);
        if (in.get(1) != 0 || in.getLong(8) != 0) {
            throw new ProtocolException("a registration with status " + in.get(1) + " and timestamp " + in.getLong(8));
        }
        if (nodes.containsKey(channel)) {
            throw new ProtocolException("a node registered twice");
        }
        KvRole role = KvJobWire.role(in.getInt(4));
        int theirWorkers = in.getInt(KvWire.HEADER);
        int theirServers = in.getInt(KvWire.HEADER + 4);
        KvJobWire.checkCounts(theirWorkers, theirServers);
        InetSocketAddress served = KvJobWire.address(in, KvWire.HEADER + 8);
        if (role == KvRole.SERVER && (served == null || served.getPort() == 0)) {
            throw new ProtocolException("a server that says no address to reach it at");
        }
        if (served != null && served.getAddress().isAnyLocalAddress()) { // listening everywhere: where it came from
            served = new InetSocketAddress(channel.remoteAddress().getAddress(), served.getPort());
        }
        if (theirWorkers != workers || theirServers != servers) {
            LOG.log(Level.WARNING, "refused a " + role.name().toLowerCase() + " at " + channel.remoteAddress() + ": it says "
                    + theirWorkers + " workers and " + theirServers + " servers, the job has " + workers + " and " + servers);
            KvJobWire.send(context, channel, KvJobWire.refusal(KvJobWire.COUNTS_DISAGREE));
            return;
        }
        if (complete || count(role) == (role == KvRole.SERVER ? servers : workers)) {
            KvJobWire.send(context, channel, KvJobWire.refusal(KvJobWire.ROLE_FULL));
            return;
        }
        nodes.put(channel, new Node(channel, role, served));
        if (nodes.size() == workers + servers) {
            start();
        }
    }

    private int count(KvRole role) {
        return (int) nodes.values().stream().filter(n -> n.role == role).count();
    }

    /** Every node is here: ranks by role in the order they registered, and the roster to each. */
    private void start() {
        complete = true;
        List<InetSocketAddress> serverList = new ArrayList<>();
        int workerRank = 0;
        for (Node node : nodes.values()) {
            if (node.role == KvRole.SERVER) {
                node.rank = serverList.size();
                serverList.add(node.served);
            } else {
                node.rank = workerRank++;
            }
        }
        for (Node node : nodes.values()) {
            KvJobWire.send(context, node.channel, KvJobWire.roster(node.rank, workers, serverList));
        }
        LOG.log(Level.INFO, "the job of " + workers + " workers and " + servers + " servers started at " + localAddress()
                + "; servers " + serverList);
        ready.complete(null);
    }

    private synchronized void barrier(RdmaChannel channel, ByteBuffer in) {
        KvJobWire.requireHeader(in, "barrier", KvWire.HEADER, true);
        KvGroup group = KvGroup.of(in.getInt(4));
        long id = in.getLong(8);
        Node node = nodes.get(channel);
        if (group == null || in.get(1) != 0) {
            throw new ProtocolException("a barrier of group " + in.getInt(4) + " with status " + in.get(1));
        } else if (node == null || !complete) {
            throw new ProtocolException("a barrier from a node before the job started");
        } else if (!group.includes(node.role)) {
            throw new ProtocolException("a " + node + " in a barrier of the " + group + " group");
        }
        List<Waiting> waiting = barriers.get(group);
        if (waiting.stream().anyMatch(w -> w.node == node)) {
            throw new ProtocolException("a node entered the " + group + " barrier twice");
        }
        Node gone = departed.stream().filter(d -> group.includes(d.role)).findFirst().orElse(null);
        if (gone != null) {
            KvJobWire.send(context, channel, KvJobWire.barrierLeft(group, id, gone.role, gone.rank));
            return;
        }
        waiting.add(new Waiting(node, id));
        if (waiting.size() == group.size(workers, servers)) {
            waiting.forEach(w -> KvJobWire.send(context, w.node.channel,
                    KvJobWire.barrier(KvJobWire.BARRIER_DONE, KvJobWire.OK, group, w.id)));
            waiting.clear();
        }
    }

    /**
     * A node's channel closed. Before the job is complete its place is free again; after, every
     * barrier of its groups fails (those waiting now and those to come).
     */
    private synchronized void left(RdmaChannel channel, Throwable cause) {
        Node node = nodes.remove(channel);
        if (node == null) {
            return;
        }
        boolean orderly = cause == null || cause instanceof RdmaClosedException;
        LOG.log(orderly ? Level.DEBUG : Level.WARNING, "the " + node + " left the job"
                + (cause == null ? "" : ": " + cause.getMessage()));
        if (!complete || closing) {
            return;
        }
        departed.add(node);
        barriers.forEach((group, waiting) -> {
            waiting.removeIf(w -> w.node == node);
            if (group.includes(node.role)) {
                waiting.forEach(w -> KvJobWire.send(context, w.node.channel,
                        KvJobWire.barrierLeft(group, w.id, node.role, node.rank)));
                waiting.clear();
            }
        });
        if (nodes.isEmpty()) {
            finished.complete(null);
        }
    }
}
