package org.jrdma.examples;

import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import org.jrdma.Access;
import org.jrdma.Rdma;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RegisteredBuffer;
import org.jrdma.kv.KeySlicer;
import org.jrdma.kv.KvGroup;
import org.jrdma.kv.KvJob;
import org.jrdma.kv.KvNode;
import org.jrdma.kv.KvRole;
import org.jrdma.kv.KvOptions;
import org.jrdma.kv.KvServer;
import org.jrdma.kv.KvWorker;
import org.jrdma.kv.MergeFunction;

/**
 * ps-lite's classic job: servers hold float32 values and sum what workers push; each worker pushes
 * its gradients for a few rounds, waits in a barrier for the others, pulls the sums and checks them.
 */
final class KvExample {
    static final int KEYS = 100;
    static final int FLOATS = 256; // 1 KiB per key
    static final int ROUNDS = 3;

    private KvExample() {
    }

    /** kv-server HOST:PORT: serves until the process is killed. */
    static int server(String[] args) throws InterruptedException {
        if (args.length != 1) {
            System.err.println("usage: kv-server HOST:PORT");
            return 2;
        }
        RdmaContext context = Rdma.open(RdmaConfig.fromEnvironment());
        KvServer server = KvServer.listen(context, Examples.address(args[0]), MergeFunction.float32Sum(), KvOptions.DEFAULTS);
        System.out.println("kv-server listening on " + server.localAddress() + " over " + context.transport());
        Thread.currentThread().join(); // the event loop serves; the process ends when killed
        return 0;
    }

    /** kv-worker RANK WORKERS HOST:PORT...: pushes, barrier, pulls, checks. */
    static int worker(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: kv-worker RANK WORKERS HOST:PORT...");
            return 2;
        }
        int rank = Integer.parseInt(args[0]);
        int workers = Integer.parseInt(args[1]);
        List<InetSocketAddress> servers = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            servers.add(Examples.address(args[i]));
        }
        long[] keys = new long[KEYS];
        int[] lengths = new int[KEYS];
        for (int k = 0; k < KEYS; k++) {
            keys[k] = k;
            lengths[k] = FLOATS * 4;
        }
        try (RdmaContext context = Rdma.open(RdmaConfig.fromEnvironment());
             // Hashed: keys 0..99 spread over every server (ps-lite's even ranges would give them all to server 0).
             KvWorker worker = KvWorker.connect(context, servers, null, KeySlicer.hashed())) {
            RegisteredBuffer gradients = context.allocate(KEYS * FLOATS * 4);
            FloatBuffer g = gradients.buffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
            for (int j = 0; j < KEYS * FLOATS; j++) {
                g.put(j, rank + 1);
            }
            for (int round = 0; round < ROUNDS; round++) {
                worker.waitFor(worker.push(keys, gradients, lengths.clone()));
            }
            worker.waitFor(worker.barrier(workers)); // every worker pushed every round
            RegisteredBuffer sums = context.allocate(KEYS * FLOATS * 4, Access.REMOTE_WRITE);
            worker.waitFor(worker.pull(keys, sums, lengths.clone()));
            float expected = ROUNDS * workers * (workers + 1) / 2f;
            FloatBuffer s = sums.buffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
            for (int j = 0; j < KEYS * FLOATS; j++) {
                if (s.get(j) != expected) {
                    System.out.println("kv-worker " + rank + ": element " + j + " is " + s.get(j) + ", expected " + expected);
                    return 1;
                }
            }
            // Leave only once every worker has pulled: a server keeps summing pushes of a next job.
            worker.waitFor(worker.barrier(workers));
            System.out.println("kv-worker " + rank + ": " + KEYS + " keys over " + servers.size() + " servers, every element = "
                    + expected + " (" + ROUNDS + " rounds x " + workers + " workers) over " + context.transport());
            return 0;
        }
    }

    /**
     * kv-node: one process of a job started as ps-lite starts one, from RDMA_KV_ROLE, RDMA_KV_SCHEDULER,
     * RDMA_KV_NUM_WORKERS and RDMA_KV_NUM_SERVERS (docs/kv.md, "Jobs"); the processes may start in any
     * order. A worker pushes its gradients for a few rounds, meets the other workers in a barrier, pulls
     * the sums and checks them; every node then finishes together.
     */
    static int node(String[] args) throws Exception {
        if (args.length != 0) {
            System.err.println("usage: RDMA_KV_ROLE=scheduler|server|worker RDMA_KV_SCHEDULER=HOST:PORT RDMA_KV_NUM_WORKERS=N"
                    + " RDMA_KV_NUM_SERVERS=M kv-node");
            return 2;
        }
        KvJob job = KvJob.fromEnvironment();
        try (RdmaContext context = Rdma.open(RdmaConfig.fromEnvironment());
             KvNode node = KvNode.start(context, job, MergeFunction.float32Sum(), KvOptions.DEFAULTS)) {
            String name = "kv-node " + job.role().name().toLowerCase() + " " + node.rank();
            if (job.role() != KvRole.WORKER) {
                System.out.println(name + ": the job of " + job.workers() + " workers and " + job.servers()
                        + " servers started over " + context.transport());
                node.finish();
                System.out.println(name + ": finished");
                return 0;
            }
            long[] keys = new long[KEYS];
            int[] lengths = new int[KEYS];
            for (int k = 0; k < KEYS; k++) {
                keys[k] = Long.divideUnsigned(-1L, KEYS) * k; // spread: each server owns a range of them
                lengths[k] = FLOATS * 4;
            }
            KvWorker worker = node.worker();
            RegisteredBuffer gradients = context.allocate(KEYS * FLOATS * 4);
            FloatBuffer g = gradients.buffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
            for (int j = 0; j < KEYS * FLOATS; j++) {
                g.put(j, node.rank() + 1);
            }
            for (int round = 0; round < ROUNDS; round++) {
                worker.waitFor(worker.push(keys, gradients, lengths.clone()));
            }
            node.barrier(KvGroup.WORKERS).get(); // every worker pushed every round
            RegisteredBuffer sums = context.allocate(KEYS * FLOATS * 4, Access.REMOTE_WRITE);
            worker.waitFor(worker.pull(keys, sums, lengths.clone()));
            int workers = job.workers();
            float expected = ROUNDS * workers * (workers + 1) / 2f;
            FloatBuffer s = sums.buffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
            for (int j = 0; j < KEYS * FLOATS; j++) {
                if (s.get(j) != expected) {
                    System.out.println(name + ": element " + j + " is " + s.get(j) + ", expected " + expected);
                    return 1;
                }
            }
            System.out.println(name + ": " + KEYS + " keys over " + node.servers().size() + " servers, every element = "
                    + expected + " (" + ROUNDS + " rounds x " + workers + " workers) over " + context.transport());
            node.finish(); // the servers stay until every worker pulled
            return 0;
        }
    }
}
