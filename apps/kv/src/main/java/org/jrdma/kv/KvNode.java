package org.jrdma.kv;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jrdma.RdmaContext;

/**
 * One process's part in a push/pull job, started from a {@link KvJob} (ps-lite's
 * {@code ps::Start}): the scheduler listens and waits for the job to fill; a server listens, joins
 * and learns its rank; a worker joins, learns the servers and connects to each. {@link #close()} is
 * ps-lite's {@code ps::Finalize} without the barrier: call {@link #barrier(KvGroup)} with
 * {@link KvGroup#ALL} first when every node should finish together.
 *
 * <pre>{@code
 * try (RdmaContext context = RdmaContext.open(RdmaConfig.fromEnvironment());
 *      KvNode node = KvNode.start(context, KvJob.fromEnvironment(), Float32Sum.INSTANCE, KvOptions.DEFAULTS)) {
 *     if (node.role() == KvRole.WORKER) {
 *         KvWorker worker = node.worker();
 *         worker.waitFor(worker.push(keys, values, lengths));
 *     }
 *     node.finish();
 * }
 * }</pre>
 */
public final class KvNode implements AutoCloseable {
    private final KvJob job;
    private final KvScheduler scheduler;
    private final KvServer server;
    private final KvMember member;
    private final KvWorker worker;

    private KvNode(KvJob job, KvScheduler scheduler, KvServer server, KvMember member, KvWorker worker) {
        this.job = job;
        this.scheduler = scheduler;
        this.server = server;
        this.member = member;
        this.worker = worker;
    }

    /**
     * Starts this process's part and returns once the job is complete (every node registered) and,
     * for a worker, connected to every server. A server or worker that cannot reach the scheduler yet
     * tries again (50 ms, doubling up to 1 s) until the join timeout: the job's processes may start in
     * any order.
     *
     * @param context the context of the node's channels
     * @param job     the node's role and the job
     * @param merge   how a server folds pushes into stored values (unused by the scheduler and workers)
     * @param options a server's bounds on what workers ask
     * @return the started node
     * @throws KvException          when the job did not fill within the job's join timeout, the
     *                              scheduler refused this node or went away, or a server could not be reached
     * @throws InterruptedException when interrupted while waiting
     */
    public static KvNode start(RdmaContext context, KvJob job, MergeFunction merge, KvOptions options)
            throws InterruptedException {
        return start(context, job, merge, options, KvRequestHandler.answerAtOnce());
    }

    /**
     * As {@link #start(RdmaContext, KvJob, MergeFunction, KvOptions)}, a server's accepted requests going to
     * {@code requests}, which answers them now or later.
     *
     * @param context  the context of the node's channels
     * @param job      the node's role and the job
     * @param merge    how a server folds pushes into stored values
     * @param options  a server's bounds on what workers ask
     * @param requests a server's handler of accepted requests
     * @return the started node
     * @throws KvException          as the other overload says
     * @throws InterruptedException when interrupted while waiting
     */
    public static KvNode start(RdmaContext context, KvJob job, MergeFunction merge, KvOptions options,
                               KvRequestHandler requests) throws InterruptedException {
        switch (job.role()) {
            case SCHEDULER -> {
                KvScheduler scheduler = KvScheduler.listen(context, job.scheduler(), job.workers(), job.servers());
                try {
                    await(scheduler.ready(), job, "the job's " + job.workers() + " workers and " + job.servers()
                            + " servers did not all register with the scheduler at " + scheduler.localAddress());
                } catch (InterruptedException | RuntimeException e) {
                    scheduler.close();
                    throw e;
                }
                return new KvNode(job, scheduler, null, null, null);
            }
            case SERVER -> {
                InetSocketAddress address = job.address() != null ? job.address() : new InetSocketAddress(0);
                KvServer server = KvServer.listen(context, address, merge, options, requests);
                try {
                    KvMember member = join(context, job, server.localAddress(), null);
                    return new KvNode(job, null, server, member, null);
                } catch (InterruptedException | RuntimeException e) {
                    server.close();
                    throw e;
                }
            }
            default -> {
                InetAddress local = job.address() != null ? job.address().getAddress() : null;
                KvMember member = join(context, job, null, local);
                try {
                    return new KvNode(job, null, null, member, KvWorker.connect(context, member.servers(), local));
                } catch (ExecutionException | TimeoutException e) {
                    member.close();
                    throw new KvException("worker " + member.rank() + " could not connect to the job's servers "
                            + member.servers() + ": " + (e.getCause() != null ? e.getCause() : e), e);
                } catch (InterruptedException | RuntimeException e) {
                    member.close();
                    throw e;
                }
            }
        }
    }

    /**
     * Joins, retrying while the scheduler cannot be reached yet (the nodes of a job start in any order,
     * as ps-lite's do), until the job's join timeout.
     */
    private static KvMember join(RdmaContext context, KvJob job, InetSocketAddress served, InetAddress local)
            throws InterruptedException {
        long deadline = System.nanoTime() + job.joinTimeout().toNanos();
        long pauseMillis = 50;
        for (;;) {
            CompletableFuture<KvMember> joining = KvMember.join(context, job.scheduler(), job.role(), job.workers(),
                    job.servers(), served, local);
            try {
                return await(joining, job, deadline, "the job did not fill (scheduler " + job.scheduler() + ")");
            } catch (KvException e) {
                joining.cancel(false); // leaves the job: frees its place at the scheduler
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (!(e.getCause() instanceof KvMember.SchedulerUnreachable) || left <= pauseMillis) {
                    throw e;
                }
                Thread.sleep(pauseMillis);
                pauseMillis = Math.min(1000, pauseMillis * 2);
            } catch (InterruptedException e) {
                joining.cancel(false);
                throw e;
            }
        }
    }

    /** Waits for {@code future} for the job's join timeout; its failure, or the timeout, as a KvException. */
    private static <T> T await(CompletableFuture<T> future, KvJob job, String timedOut) throws InterruptedException {
        return await(future, job, System.nanoTime() + job.joinTimeout().toNanos(), timedOut);
    }

    /** Waits for {@code future} until {@code deadline} (System.nanoTime); its failure, or the timeout, as a KvException. */
    private static <T> T await(CompletableFuture<T> future, KvJob job, long deadline, String timedOut)
            throws InterruptedException {
        try {
            return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new KvException(timedOut + " within " + job.joinTimeout().toMillis() + " ms (RDMA_KV_JOIN_TIMEOUT_MS)", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof KvException kv ? new KvException(kv.getMessage(), kv)
                    : new KvException(String.valueOf(cause), cause);
        }
    }

    /**
     * This process's role.
     *
     * @return scheduler, server or worker
     */
    public KvRole role() {
        return job.role();
    }

    /**
     * This node's rank among the job's nodes of its role (the scheduler's is 0).
     *
     * @return the rank
     */
    public int rank() {
        return member == null ? 0 : member.rank();
    }

    /**
     * The job's servers' addresses in rank order, as the scheduler gave them (the scheduler's own list
     * is empty).
     *
     * @return the servers
     */
    public List<InetSocketAddress> servers() {
        return member == null ? List.of() : member.servers();
    }

    /**
     * The job this node is part of.
     *
     * @return the job
     */
    public KvJob job() {
        return job;
    }

    /**
     * A worker's connection to the servers.
     *
     * @return the worker
     * @throws IllegalStateException when this node is not a worker
     */
    public KvWorker worker() {
        return part(worker, KvRole.WORKER);
    }

    /**
     * A server's store.
     *
     * @return the server
     * @throws IllegalStateException when this node is not a server
     */
    public KvServer server() {
        return part(server, KvRole.SERVER);
    }

    /**
     * The scheduler.
     *
     * @return the scheduler
     * @throws IllegalStateException when this node is not the scheduler
     */
    public KvScheduler scheduler() {
        return part(scheduler, KvRole.SCHEDULER);
    }

    private <T> T part(T part, KvRole role) {
        if (part == null) {
            throw new IllegalStateException("this node is a " + job.role().name().toLowerCase() + ", not a "
                    + role.name().toLowerCase());
        }
        return part;
    }

    /**
     * Enters a group's barrier (ps-lite's {@code Postoffice::Barrier}).
     *
     * @param group who meets; this node's role must be in it
     * @return completes once every node of the group entered; fails with {@link KvException} when one
     *         of them left the job or the scheduler went away
     * @throws IllegalArgumentException when this node is not in the group (the scheduler is in none)
     */
    public CompletableFuture<Void> barrier(KvGroup group) {
        if (member == null) {
            throw new IllegalArgumentException("the scheduler is in no barrier group");
        }
        return member.barrier(group);
    }

    /**
     * Ends this node's part together with the others (ps-lite's {@code ps::Finalize} with its barrier):
     * a server or worker passes the {@link KvGroup#ALL} barrier, the scheduler waits until every node
     * left; then the node closes. Waits up to the job's join timeout.
     *
     * @throws KvException          when a node left early, the scheduler went away, or the wait timed out
     * @throws InterruptedException when interrupted while waiting
     */
    public void finish() throws InterruptedException {
        try {
            if (member != null) {
                await(member.barrier(KvGroup.ALL), job, "the job's other nodes did not finish");
            } else {
                await(scheduler.finished(), job, "the job's nodes did not all leave");
            }
        } finally {
            close();
        }
    }

    /** Leaves the job: closes the worker's or server's channels, the membership and the scheduler. Idempotent. */
    @Override
    public void close() {
        if (worker != null) {
            worker.close();
        }
        if (server != null) {
            server.close();
        }
        if (member != null) {
            member.close();
        }
        if (scheduler != null) {
            scheduler.close();
        }
    }
}
