package org.jrdma.rxe.verbs;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.jrdma.Access;
import org.jrdma.Rdma;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RegisteredBuffer;
import org.jrdma.kv.KvOptions;
import org.jrdma.kv.KvServer;
import org.jrdma.kv.KvWorker;
import org.jrdma.kv.MergeFunction;

/**
 * A process of {@link KvProcessesTest}. {@code server DEVICE IP PORT} serves until killed and prints
 * "LISTENING". {@code worker DEVICE LOCAL_IP INDEX WORKERS ROUNDS SERVER...} pushes every key each
 * round, waits in a barrier for all workers, pulls every key and checks it against its own model of
 * what all workers pushed so far, then waits in a second barrier; prints "ROUND r OK", "SLOTS n" and
 * "DONE", or "FAILED why" and exits with 1.
 */
public final class KvPeer {
    /** 1,000 keys spread over the key space: every 100th of 8 KiB..4 MiB, the others 4 B..4 KiB. */
    static final int KEYS = 1000;

    private KvPeer() {
    }

    static int length(int i) {
        return i % 100 == 99 ? (8 << 10) << (i / 100) : 4 << (i % 11);
    }

    static long key(int i) {
        return Long.divideUnsigned(-1L, KEYS) * i + 7;
    }

    /** Element j of worker w's value for key i in a round: small integers, so float32 sums are exact. */
    static float element(int w, int round, int i, int j) {
        return (w + 1) * (round + 1) + (i + j) % 5;
    }

    /** As long as Rdma.open, but the ACK timeout of a loaded emulated guest (see KvTest). */
    private static RdmaContext open(String device) {
        return Rdma.open(RdmaConfig.builder().device(device).timeout(18).build());
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("server")) {
            RdmaContext context = open(args[1]);
            KvServer.listen(context, new InetSocketAddress(args[2], Integer.parseInt(args[3])), MergeFunction.float32Sum(),
                    KvOptions.DEFAULTS);
            System.out.println("LISTENING");
            System.out.flush();
            new CountDownLatch(1).await(); // until killed
        }
        try {
            worker(args);
            System.out.println("DONE");
            System.exit(0);
        } catch (Throwable t) {
            System.out.println("FAILED " + t);
            t.printStackTrace(System.out);
            System.exit(1);
        }
    }

    private static void worker(String[] args) throws Exception {
        int me = Integer.parseInt(args[3]);
        int workers = Integer.parseInt(args[4]);
        int rounds = Integer.parseInt(args[5]);
        List<InetSocketAddress> servers = new ArrayList<>();
        for (int a = 6; a < args.length; a++) {
            String[] hostPort = args[a].split(":");
            servers.add(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])));
        }
        RdmaContext context = open(args[1]);
        KvWorker worker = KvWorker.connect(context, servers, InetAddress.getByName(args[2]));
        long[] keys = new long[KEYS];
        int[] lengths = new int[KEYS];
        int total = 0;
        double[][] model = new double[KEYS][];
        for (int i = 0; i < KEYS; i++) {
            keys[i] = key(i);
            lengths[i] = length(i);
            total += lengths[i];
            model[i] = new double[lengths[i] / 4];
        }
        RegisteredBuffer values = context.allocate(total);
        RegisteredBuffer pulled = context.allocate(total, Access.REMOTE_WRITE);
        for (int round = 0; round < rounds; round++) {
            long start = System.nanoTime();
            FloatBuffer f = values.buffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
            int at = 0;
            for (int i = 0; i < KEYS; i++) {
                for (int j = 0; j < lengths[i] / 4; j++) {
                    f.put(at++, element(me, round, i, j));
                    for (int w = 0; w < workers; w++) { // the model: what every worker pushes this round
                        model[i][j] += element(w, round, i, j);
                    }
                }
            }
            worker.waitFor(worker.push(keys, values, lengths));
            worker.waitFor(worker.barrier(workers)); // every worker's push of this round is in
            int[] got = lengths.clone();
            worker.waitFor(worker.pull(keys, pulled, got));
            FloatBuffer p = pulled.buffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
            at = 0;
            for (int i = 0; i < KEYS; i++) {
                if (got[i] != lengths[i]) {
                    throw new AssertionError("round " + round + " key " + i + ": length " + got[i] + ", pushed " + lengths[i]);
                }
                for (int j = 0; j < lengths[i] / 4; j++) {
                    float v = p.get(at++);
                    if (v != (float) model[i][j]) {
                        throw new AssertionError("round " + round + " key " + i + " (" + lengths[i] + " bytes) element " + j
                                + ": " + v + ", the model says " + model[i][j]);
                    }
                }
            }
            worker.waitFor(worker.barrier(workers)); // nobody pushes the next round before all have pulled
            System.out.println("ROUND " + round + " OK (" + (System.nanoTime() - start) / 1_000_000 + " ms)");
            System.out.flush();
        }
        System.out.println("SLOTS " + worker.slots());
        worker.close();
        context.close();
    }
}
