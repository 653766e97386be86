package org.jrdma.rxe.contract;

import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import org.jrdma.Access;
import org.jrdma.Rdma;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RegisteredBuffer;
import org.jrdma.kv.KvGroup;
import org.jrdma.kv.KvJob;
import org.jrdma.kv.KvNode;
import org.jrdma.kv.KvOptions;
import org.jrdma.kv.KvRole;
import org.jrdma.kv.KvScheduler;
import org.jrdma.kv.KvWorker;
import org.jrdma.kv.MergeFunction;

/**
 * A node of {@link KvJobProcessesContract}, started the way a ps-lite job's processes are: its role and
 * the job from {@code RDMA_KV_*}, its transport and device from {@code RDMA_*}. The scheduler prints
 * "LISTENING", "REGISTERED n" as nodes register, "READY" and, once every node left, "FINISHED". A server prints
 * "SERVER rank", then finishes (waits in the ALL barrier) and prints "FINISHED". A worker prints
 * "WORKER rank"; with argument {@code ROUNDS} it pushes every key each round, meets the other workers
 * in a barrier, pulls every key and checks it against the sums of what all workers pushed so far
 * ("ROUND r OK"), then finishes; with {@code until-failure} it pushes until a push fails, printing
 * "PUSHED" after the first. Any failure prints "FAILED class: message" and exits with 1.
 */
public final class KvJobPeer {
    static final long[] KEYS = {7, 1L << 62, Long.MIN_VALUE + 7, -7};
    static final int[] LENGTHS = {4, 4096, 65536, 1 << 20};

    private KvJobPeer() {
    }

    /** Element j of the value worker w pushes in a round: small integers, exact in float32 sums. */
    static float element(int w, int round, int j) {
        return (w + 1) * (round + 1) + j % 7;
    }

    public static void main(String[] args) {
        try (RdmaContext context = Rdma.open(RdmaConfig.fromEnvironment())) {
            KvJob job = KvJob.fromEnvironment();
            if (job.role() == KvRole.SCHEDULER) {
                schedule(context, job);
            } else {
                try (KvNode node = KvNode.start(context, job, MergeFunction.float32Sum(), KvOptions.DEFAULTS)) {
                    print(job.role().name() + " " + node.rank());
                    if (job.role() == KvRole.WORKER) {
                        work(context, node, args[0]);
                    }
                    node.finish();
                }
            }
            print("FINISHED");
        } catch (Throwable t) {
            print("FAILED " + t.getClass().getName() + ": " + t.getMessage());
            System.exit(1);
        }
        System.exit(0);
    }

    private static void print(String line) {
        System.out.println(line);
        System.out.flush();
    }

    /** The scheduler, reporting each registration ("REGISTERED n", polled: a progress report only). */
    private static void schedule(RdmaContext context, KvJob job) throws Exception {
        try (KvScheduler scheduler = KvScheduler.listen(context, job.scheduler(), job.workers(), job.servers())) {
            print("LISTENING");
            int seen = 0;
            while (!scheduler.ready().isDone()) {
                int now = scheduler.registered();
                if (now != seen) {
                    seen = now;
                    print("REGISTERED " + now);
                }
                TimeUnit.MILLISECONDS.sleep(10);
            }
            scheduler.ready().get();
            print("READY");
            scheduler.finished().get();
        }
    }

    private static void work(RdmaContext context, KvNode node, String mode) throws Exception {
        KvWorker worker = node.worker();
        int total = 0;
        for (int length : LENGTHS) {
            total += length;
        }
        try (RegisteredBuffer values = context.allocate(total);
             RegisteredBuffer pulled = context.allocate(total, Access.REMOTE_WRITE)) {
            boolean forever = mode.equals("until-failure");
            int rounds = forever ? Integer.MAX_VALUE : Integer.parseInt(mode);
            for (int round = 0; round < rounds; round++) {
                for (int j = 0; j < total / 4; j++) {
                    values.buffer().order(ByteOrder.LITTLE_ENDIAN).putFloat(4 * j, element(node.rank(), round, j));
                }
                worker.waitFor(worker.push(KEYS, values, LENGTHS));
                if (forever) {
                    if (round == 0) {
                        print("PUSHED");
                    }
                    continue;
                }
                node.barrier(KvGroup.WORKERS).get();
                worker.waitFor(worker.pull(KEYS, pulled, LENGTHS.clone()));
                check(pulled, total, node.job().workers(), round);
                node.barrier(KvGroup.WORKERS).get(); // nobody pushes the next round before all pulled this one
                print("ROUND " + round + " OK");
            }
        }
    }

    private static void check(RegisteredBuffer pulled, int total, int workers, int round) {
        for (int j = 0; j < total / 4; j++) {
            float expected = 0;
            for (int w = 0; w < workers; w++) {
                for (int r = 0; r <= round; r++) {
                    expected += element(w, r, j);
                }
            }
            float got = pulled.buffer().order(ByteOrder.LITTLE_ENDIAN).getFloat(4 * j);
            if (got != expected) {
                throw new AssertionError("round " + round + ": float " + j + " is " + got + ", expected " + expected);
            }
        }
    }
}
