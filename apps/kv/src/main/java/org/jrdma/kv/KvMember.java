package org.jrdma.kv;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jrdma.ChannelHandler;
import org.jrdma.ProtocolException;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaMessage;

/**
 * A server's or worker's place in a job (ps-lite's Postoffice on a node): registered with the
 * job's {@link KvScheduler}, it knows its rank, the job's size and the servers' addresses in rank
 * order, and meets the others in group barriers. When the scheduler goes away, the join and every
 * barrier not answered yet fail with {@link KvException}; so do the barriers of a group one of
 * whose nodes left. Thread-safe.
 */
public final class KvMember implements AutoCloseable {
    private final RdmaContext context;
    private final InetSocketAddress scheduler;
    private final KvRole role;
    private final int workers;
    private final int servers;
    private final CompletableFuture<KvMember> joined = new CompletableFuture<>();
    private final Map<Long, CompletableFuture<Void>> barriers = new ConcurrentHashMap<>();
    private final AtomicLong nextBarrier = new AtomicLong(1);
    private volatile RdmaChannel channel;
    private volatile KvException gone; // set once the scheduler's channel closed
    private volatile int rank = -1;
    private volatile List<InetSocketAddress> serverAddresses = List.of();

    /** The join's connection to the scheduler failed: nothing was registered, so a retry is safe. */
    static final class SchedulerUnreachable extends KvException {
        private static final long serialVersionUID = 1L;

        SchedulerUnreachable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private KvMember(RdmaContext context, InetSocketAddress scheduler, KvRole role, int workers, int servers) {
        this.context = context;
        this.scheduler = scheduler;
        this.role = role;
        this.workers = workers;
        this.servers = servers;
    }

    /**
     * Registers with the scheduler and completes once the job is complete (every node registered) with
     * this node's rank and the servers' addresses; fails with {@link KvException} when the scheduler
     * refuses the node (the job's size differs, the role is full) or goes away, or with the
     * connection's failure. Waits as long as the job takes to fill: bound it with
     * {@link CompletableFuture#orTimeout} or cancel it, as {@link KvNode#start} does; a join that
     * fails, times out or is cancelled leaves the job, which frees its place.
     *
     * @param context   the context of the node's channels
     * @param scheduler where the scheduler listens
     * @param role      {@link KvRole#SERVER} or {@link KvRole#WORKER}
     * @param workers   the job's workers, as every node and the scheduler say
     * @param servers   the job's servers, as every node and the scheduler say
     * @param served    a server's address, where workers reach it (a wildcard address is taken to mean
     *                  the address the scheduler sees it come from); null for a worker
     * @param local     the address to connect from (null: the route's choice)
     * @return the member, once the job is complete
     * @throws IllegalArgumentException when the role is the scheduler's, a server says no address, or a count is out of range
     */
    public static CompletableFuture<KvMember> join(RdmaContext context, InetSocketAddress scheduler, KvRole role, int workers,
                                                   int servers, InetSocketAddress served, InetAddress local) {
        Objects.requireNonNull(scheduler, "scheduler");
        if (role == KvRole.SCHEDULER || (role == KvRole.SERVER && (served == null || served.getPort() == 0))) {
            throw new IllegalArgumentException(role == KvRole.SCHEDULER ? "the scheduler does not join a job"
                    : "a server joins with the address workers reach it at (port included)");
        }
        if (workers < 1 || servers < 1 || workers > KvJobWire.MAX_NODES || servers > KvJobWire.MAX_NODES) {
            throw new IllegalArgumentException("a job of " + workers + " workers and " + servers + " servers (1.."
                    + KvJobWire.MAX_NODES + " each)");
        }
        KvMember member = new KvMember(context, scheduler, role, workers, servers);
        ByteBuffer registration = KvJobWire.register(role, workers, servers, role == KvRole.SERVER ? served : null);
        context.connect(scheduler, local, member.handler()).whenComplete((channel, failure) -> {
            if (failure != null) {
                member.joined.completeExceptionally(new SchedulerUnreachable("the scheduler at " + scheduler
                        + " could not be reached: " + failure.getMessage(), failure));
                return;
            }
            member.channel = channel;
            if (member.joined.isDone()) { // failed, timed out or cancelled while connecting
                channel.close();
            } else {
                KvJobWire.send(context, channel, registration);
            }
        });
        // A join that fails, times out or is cancelled leaves the job (frees its place at the scheduler).
        member.joined.whenComplete((m, failure) -> {
            if (failure != null) {
                member.close();
            }
        });
        return member.joined;
    }

    /**
     * This node's role.
     *
     * @return server or worker
     */
    public KvRole role() {
        return role;
    }

    /**
     * This node's rank among the job's nodes of its role (0..), given in the order they registered; a
     * server's rank is its place in {@link #servers()}.
     *
     * @return the rank
     */
    public int rank() {
        return rank;
    }

    /**
     * The job's workers.
     *
     * @return how many
     */
    public int workers() {
        return workers;
    }

    /**
     * The job's servers' addresses in rank order: what {@link KvWorker#connect} takes.
     *
     * @return the servers
     */
    public List<InetSocketAddress> servers() {
        return serverAddresses;
    }

    /**
     * Enters the group's barrier: completes once every node of the group entered it; fails with
     * {@link KvException} when a node of the group left the job (now or before) or the scheduler went away.
     *
     * @param group who meets (this node's role must be in it)
     * @return completes when the barrier is passed
     * @throws IllegalArgumentException when this node is not in the group
     * @throws IllegalStateException    before the join completed
     */
    public CompletableFuture<Void> barrier(KvGroup group) {
        if (rank < 0) {
            throw new IllegalStateException("a barrier before the job started (wait for the join)");
        }
        if (!group.includes(role)) {
            throw new IllegalArgumentException("a " + role.name().toLowerCase() + " is not in the " + group + " group");
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        long id = nextBarrier.getAndIncrement();
        barriers.put(id, done);
        done.whenComplete((v, t) -> barriers.remove(id));
        KvException failure = gone;
        if (failure != null) {
            done.completeExceptionally(failure);
        } else {
            KvJobWire.send(context, channel, KvJobWire.barrier(KvJobWire.BARRIER, 0, group, id));
        }
        return done;
    }

    /** Leaves the job: closes the channel to the scheduler (barriers not answered yet fail). */
    @Override
    public void close() {
        RdmaChannel c = channel;
        if (c != null) {
            c.close();
        }
        goneWith(new KvException("this " + role.name().toLowerCase() + " left the job", null));
    }

    private ChannelHandler handler() {
        return new ChannelHandler() {
            @Override
            public void onMessage(RdmaChannel channel, RdmaMessage message) {
                ByteBuffer in = KvWire.le(message.payload());
                KvWire.guarded(channel, "to the scheduler", () -> {
                    byte type = in.remaining() > 0 ? in.get(0) : 0;
                    if (type == KvJobWire.ROSTER && !joined.isDone()) {
                        roster(channel, in);
                    } else if (gone != null) {
                        return; // left while the scheduler's answer was on its way
                    } else if (type == KvJobWire.BARRIER_DONE) {
                        barrierDone(in);
                    } else {
                        throw new ProtocolException("an unexpected scheduler message type " + type);
                    }
                });
            }

            @Override
            public void onClose(RdmaChannel channel, Throwable cause) {
                goneWith(new KvException("the scheduler at " + scheduler + " is gone"
                        + (cause == null ? "" : ": " + cause.getMessage()), cause));
            }
        };
    }

    private void goneWith(KvException failure) {
        if (gone == null) {
            gone = failure;
        }
        joined.completeExceptionally(failure);
        barriers.values().forEach(b -> b.completeExceptionally(failure));
    }

    private void roster(RdmaChannel channel, ByteBuffer in) {
        KvJobWire.requireHeader(in, "roster", KvWire.HEADER, false);
        int status = in.get(1);
        if (status != KvJobWire.OK) {
            joined.completeExceptionally(new KvException("the scheduler at " + scheduler + " refused this "
                    + role.name().toLowerCase() + ": " + KvJobWire.status(status)));
            channel.close();
            return;
        }
        KvJobWire.requireHeader(in, "roster", KvJobWire.ROSTER_FIXED, false);
        int myRank = in.getInt(4);
        if (in.getInt(KvWire.HEADER) != workers || in.getInt(KvWire.HEADER + 4) != servers
                || myRank < 0 || myRank >= (role == KvRole.SERVER ? servers : workers)) {
            throw new ProtocolException("a roster of " + in.getInt(KvWire.HEADER) + " workers and " + in.getInt(KvWire.HEADER + 4)
                    + " servers giving rank " + myRank + " to a " + role.name().toLowerCase() + " of a job of " + workers
                    + " and " + servers);
        }
        serverAddresses = KvJobWire.servers(in, servers);
        rank = myRank;
        joined.complete(this);
    }

    private void barrierDone(ByteBuffer in) {
        int status = in.remaining() >= KvWire.HEADER ? in.get(1) : -1;
        KvJobWire.requireHeader(in, "barrier answer", status == KvJobWire.MEMBER_LEFT ? KvJobWire.BARRIER_LEFT_SIZE
                : KvWire.HEADER, true);
        KvGroup group = KvGroup.of(in.getInt(4));
        CompletableFuture<Void> done = barriers.get(in.getLong(8));
        if (group == null || done == null) {
            throw new ProtocolException("an answer to barrier " + in.getLong(8) + " of group " + in.getInt(4)
                    + ", which this node is not in");
        }
        if (status == KvJobWire.OK) {
            done.complete(null);
        } else if (status == KvJobWire.MEMBER_LEFT) {
            KvRole left = KvJobWire.role(in.getInt(KvWire.HEADER));
            done.completeExceptionally(new KvException("the " + group + " barrier failed: " + left.name().toLowerCase() + " "
                    + Integer.toUnsignedString(in.getInt(KvWire.HEADER + 4)) + " left the job"));
        } else {
            done.completeExceptionally(new KvException("the " + group + " barrier failed: " + KvJobWire.status(status)));
        }
    }
}
