package org.jrdma.rxe.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jrdma.Access;
import org.jrdma.RdmaContext;
import org.jrdma.RegisteredBuffer;
import org.jrdma.kv.KvException;
import org.jrdma.kv.KvGroup;
import org.jrdma.kv.KvJob;
import org.jrdma.kv.KvMember;
import org.jrdma.kv.KvNode;
import org.jrdma.kv.KvOptions;
import org.jrdma.kv.KvRole;
import org.jrdma.kv.KvScheduler;
import org.jrdma.kv.KvWorker;
import org.jrdma.kv.MergeFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * ps-lite's job start-up over every transport (KvJobTest: verbs in the VM; TcpKvJobTest, ShmKvJobTest:
 * the host), in one process: a scheduler, servers and workers started from {@link KvJob}s find each
 * other, get ranks and the servers' addresses, push through the job and finish together; nodes that
 * disagree on the job's size or come when their role is full are refused; group barriers wait for
 * their group only and fail — never hang — when a node of the group or the scheduler goes away.
 * The same with each node in its own process, killed: KvJobProcessesContract.
 */
public abstract class KvJobContract {
    protected abstract Fabric fabric();

    private static final long WAIT_S = 120;
    private final ExecutorService starts = Executors.newCachedThreadPool();
    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void closeNodes() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        starts.shutdownNow();
    }

    private static KvJob job(KvRole role, InetSocketAddress scheduler, int workers, int servers, InetSocketAddress address) {
        return new KvJob(role, scheduler, workers, servers, address, Duration.ofSeconds(WAIT_S));
    }

    /** Starts a node on another thread (start blocks until the job is complete). */
    private Future<KvNode> start(RdmaContext context, KvJob job) {
        return starts.submit(() -> {
            KvNode node = KvNode.start(context, job, MergeFunction.float32Sum(), KvOptions.DEFAULTS);
            synchronized (opened) {
                opened.add(node);
            }
            return node;
        });
    }

    private <T extends AutoCloseable> T opened(T closeable) {
        synchronized (opened) {
            opened.add(closeable);
        }
        return closeable;
    }

    private static <T> T get(Future<T> future) throws Exception {
        return future.get(WAIT_S, TimeUnit.SECONDS);
    }

    /** The failure of a future that must fail, unwrapped. */
    private static Throwable failureOf(Future<?> future) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(WAIT_S, TimeUnit.SECONDS));
        return e.getCause();
    }

    private CompletableFuture<KvMember> join(RdmaContext context, InetSocketAddress scheduler, KvRole role, int workers,
                                             int servers, InetSocketAddress served, Endpoints e) {
        CompletableFuture<KvMember> joining = KvMember.join(context, scheduler, role, workers, servers, served,
                context == e.client ? e.clientAddress : null);
        joining.thenAccept(this::opened);
        return joining;
    }

    @Test
    void aJobOfTwoServersAndThreeWorkersStartsPushesAndFinishesTogether() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            InetSocketAddress at = e.address();
            Future<KvNode> scheduler = start(e.server, job(KvRole.SCHEDULER, at, 3, 2, null));
            List<Future<KvNode>> servers = new ArrayList<>();
            List<Future<KvNode>> workers = new ArrayList<>();
            for (int s = 0; s < 2; s++) {
                servers.add(start(e.server, job(KvRole.SERVER, at, 3, 2, e.address())));
            }
            for (int w = 0; w < 3; w++) {
                workers.add(start(e.client, job(KvRole.WORKER, at, 3, 2, new InetSocketAddress(e.clientAddress, 0))));
            }
            Set<Integer> serverRanks = new TreeSet<>();
            List<InetSocketAddress> byRank = new ArrayList<>(List.of(at, at));
            for (Future<KvNode> s : servers) {
                KvNode server = get(s);
                serverRanks.add(server.rank());
                byRank.set(server.rank(), server.server().localAddress());
            }
            assertEquals(Set.of(0, 1), serverRanks);
            Set<Integer> workerRanks = new TreeSet<>();
            for (Future<KvNode> w : workers) {
                KvNode worker = get(w);
                workerRanks.add(worker.rank());
                assertEquals(3, worker.job().workers());
            }
            assertEquals(Set.of(0, 1, 2), workerRanks);
            get(scheduler); // returned once the job was complete
            assertEquals(5, get(scheduler).scheduler().registered());

            for (Future<KvNode> w : workers) {
                assertEquals(byRank, get(w).servers());
            }

            // What worker 0 pushes through the servers the roster named, worker 2 pulls after a WORKERS barrier.
            KvWorker pusher = get(workers.get(0)).worker();
            KvWorker puller = get(workers.get(2)).worker();
            long[] keys = {7, Long.MIN_VALUE + 7}; // one on each server
            int[] lengths = {64, 4096};
            try (RegisteredBuffer values = e.client.allocate(64 + 4096);
                 RegisteredBuffer pulled = e.client.allocate(64 + 4096, Access.REMOTE_WRITE)) {
                for (int i = 0; i < (64 + 4096) / 4; i++) {
                    values.buffer().order(ByteOrder.LITTLE_ENDIAN).putFloat(4 * i, i);
                }
                KvContract.waitFor(pusher, pusher.push(keys, values, lengths), "push");
                List<CompletableFuture<Void>> barrier = new ArrayList<>();
                for (Future<KvNode> w : workers) {
                    barrier.add(get(w).barrier(KvGroup.WORKERS));
                }
                for (CompletableFuture<Void> b : barrier) {
                    get(b);
                }
                KvContract.waitFor(puller, puller.pull(keys, pulled, lengths.clone()), "pull");
                for (int i = 0; i < (64 + 4096) / 4; i++) {
                    assertEquals(i, pulled.buffer().order(ByteOrder.LITTLE_ENDIAN).getFloat(4 * i), "float " + i);
                }
            }

            // finish: servers and workers pass the ALL barrier, the scheduler sees every node leave.
            List<Future<Void>> finishing = new ArrayList<>();
            for (Future<KvNode> node : List.of(servers.get(0), servers.get(1), workers.get(0), workers.get(1),
                    workers.get(2), scheduler)) {
                KvNode n = get(node);
                finishing.add(starts.submit(() -> {
                    n.finish();
                    return null;
                }));
            }
            for (Future<Void> f : finishing) {
                get(f);
            }
        }
    }

    @Test
    void nodesThatDisagreeOnTheJobsSizeOrComeWhenTheirRoleIsFullAreRefused() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            KvScheduler scheduler = opened(KvScheduler.listen(e.server, e.address(), 2, 1));
            InetSocketAddress at = scheduler.localAddress();
            Throwable disagree = failureOf(join(e.client, at, KvRole.WORKER, 3, 1, null, e));
            assertTrue(disagree instanceof KvException && disagree.getMessage().contains("disagree"), String.valueOf(disagree));

            CompletableFuture<KvMember> server = join(e.server, at, KvRole.SERVER, 2, 1, e.address(), e);
            awaitRegistered(scheduler, 1);
            Throwable full = failureOf(join(e.server, at, KvRole.SERVER, 2, 1, e.address(), e));
            assertTrue(full instanceof KvException && full.getMessage().contains("all its nodes of this role"),
                    String.valueOf(full));
            assertFalse(server.isDone(), "the first server's join completed before the job did");

            CompletableFuture<KvMember> w0 = join(e.client, at, KvRole.WORKER, 2, 1, null, e);
            CompletableFuture<KvMember> w1 = join(e.client, at, KvRole.WORKER, 2, 1, null, e);
            get(scheduler.ready());
            assertEquals(Set.of(0, 1), Set.of(get(w0).rank(), get(w1).rank()));
            assertEquals(0, get(server).rank());
            Throwable late = failureOf(join(e.client, at, KvRole.WORKER, 2, 1, null, e));
            assertTrue(late.getMessage().contains("all its nodes of this role"), late.getMessage());
            assertEquals(3, scheduler.registered());
        }
    }

    @Test
    void aNodeThatLeavesBeforeTheJobIsCompleteFreesItsPlace() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            KvScheduler scheduler = opened(KvScheduler.listen(e.server, e.address(), 1, 1));
            InetSocketAddress at = scheduler.localAddress();
            KvJob impatient = new KvJob(KvRole.WORKER, at, 1, 1, null, Duration.ofMillis(300));
            KvException timedOut = assertThrows(KvException.class,
                    () -> KvNode.start(e.client, impatient, MergeFunction.float32Sum(), KvOptions.DEFAULTS));
            assertTrue(timedOut.getMessage().contains("RDMA_KV_JOIN_TIMEOUT_MS"), timedOut.getMessage());
            // Its place is free again once the scheduler saw it go: another worker completes the job.
            awaitRegistered(scheduler, 0);
            CompletableFuture<KvMember> worker = join(e.client, at, KvRole.WORKER, 1, 1, null, e);
            CompletableFuture<KvMember> server = join(e.server, at, KvRole.SERVER, 1, 1, e.address(), e);
            assertEquals(0, get(worker).rank());
            assertEquals(0, get(server).rank());
        }
    }

    @Test
    void groupBarriersWaitForTheirGroupAndFailWhenOneOfItsNodesLeaves() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            KvScheduler scheduler = opened(KvScheduler.listen(e.server, e.address(), 2, 2));
            InetSocketAddress at = scheduler.localAddress();
            List<CompletableFuture<KvMember>> joins = List.of(
                    join(e.server, at, KvRole.SERVER, 2, 2, e.address(), e),
                    join(e.server, at, KvRole.SERVER, 2, 2, e.address(), e),
                    join(e.client, at, KvRole.WORKER, 2, 2, null, e),
                    join(e.client, at, KvRole.WORKER, 2, 2, null, e));
            List<KvMember> m = new ArrayList<>();
            for (CompletableFuture<KvMember> j : joins) {
                m.add(get(j));
            }
            KvMember s0 = m.get(0);
            KvMember s1 = m.get(1);
            KvMember w0 = m.get(2);
            KvMember w1 = m.get(3);
            assertThrows(IllegalArgumentException.class, () -> w0.barrier(KvGroup.SERVERS));

            CompletableFuture<Void> workersFirst = w0.barrier(KvGroup.WORKERS);
            CompletableFuture<Void> all0 = s0.barrier(KvGroup.ALL);
            // The servers' barrier passes while a worker waits in the workers' one and a server in ALL.
            CompletableFuture<Void> servers0 = s0.barrier(KvGroup.SERVERS);
            get(s1.barrier(KvGroup.SERVERS));
            get(servers0);
            assertFalse(workersFirst.isDone(), "the workers' barrier passed with one worker in it");
            assertFalse(all0.isDone(), "the ALL barrier passed with one node in it");
            get(w1.barrier(KvGroup.WORKERS));
            get(workersFirst);
            List<CompletableFuture<Void>> all = List.of(all0, s1.barrier(KvGroup.ALL), w0.barrier(KvGroup.ALL),
                    w1.barrier(KvGroup.ALL));
            for (CompletableFuture<Void> b : all) {
                get(b);
            }

            // Worker 1 leaves while worker 0 waits for it: worker 0's barrier fails, naming it; so does
            // every later barrier of a group with workers in it; the servers' barrier still works.
            CompletableFuture<Void> waiting = w0.barrier(KvGroup.WORKERS);
            int leaving = w1.rank();
            w1.close();
            Throwable left = failureOf(waiting);
            assertTrue(left instanceof KvException && left.getMessage().contains("worker " + leaving + " left"),
                    String.valueOf(left));
            Throwable later = failureOf(s0.barrier(KvGroup.ALL));
            assertTrue(later.getMessage().contains("worker " + leaving + " left"), later.getMessage());
            CompletableFuture<Void> serversAgain = s0.barrier(KvGroup.SERVERS);
            get(s1.barrier(KvGroup.SERVERS));
            get(serversAgain);
        }
    }

    @Test
    void theSchedulerGoingAwayFailsJoinsAndBarriersThatWait() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            KvScheduler first = opened(KvScheduler.listen(e.server, e.address(), 2, 1));
            CompletableFuture<KvMember> waitingToJoin = join(e.client, first.localAddress(), KvRole.WORKER, 2, 1, null, e);
            awaitRegistered(first, 1);
            first.close();
            Throwable gone = failureOf(waitingToJoin);
            assertTrue(gone instanceof KvException && gone.getMessage().contains("gone"), String.valueOf(gone));
            assertTrue(first.ready().isCompletedExceptionally());

            KvScheduler second = opened(KvScheduler.listen(e.server, e.address(), 1, 1));
            InetSocketAddress at = second.localAddress();
            CompletableFuture<KvMember> worker = join(e.client, at, KvRole.WORKER, 1, 1, null, e);
            KvMember server = get(join(e.server, at, KvRole.SERVER, 1, 1, e.address(), e));
            CompletableFuture<Void> barrier = server.barrier(KvGroup.ALL);
            get(worker);
            second.close();
            Throwable barrierGone = failureOf(barrier);
            assertTrue(barrierGone instanceof KvException && barrierGone.getMessage().contains("gone"),
                    String.valueOf(barrierGone));
            Throwable after = failureOf(get(worker).barrier(KvGroup.WORKERS));
            assertTrue(after instanceof KvException, String.valueOf(after));
        }
    }

    /** Waits (bounded) until the scheduler has {@code n} nodes registered: an event it has no future for. */
    private static void awaitRegistered(KvScheduler scheduler, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (scheduler.registered() != n) {
            assertTrue(System.nanoTime() < deadline, "the scheduler registered " + scheduler.registered() + " of " + n);
            Thread.sleep(10);
        }
    }
}
