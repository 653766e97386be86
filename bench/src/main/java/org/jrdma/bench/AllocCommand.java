package org.jrdma.bench;

import java.io.PrintStream;
import java.util.concurrent.Callable;
import org.jrdma.Access;
import org.jrdma.Rdma;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RegisteredBuffer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code alloc [ITERATIONS]}: what {@code allocate} + {@code close} cost per buffer on the device of
 * the RDMA_* variables, local-only (a pool block) and with remote write (a pool block plus a
 * registration of exactly its bytes, deregistered on close), for sizes from 4 KiB to 4 MiB.
 */
@Command(name = "alloc", mixinStandardHelpOptions = true,
        description = "what allocate + close cost per buffer, local-only and with remote write, 4 KiB .. 4 MiB")
final class AllocCommand implements Callable<Integer> {
    private static final int[] SIZES = {4096, 65536, 1 << 20, 4 << 20};

    @Parameters(index = "0", arity = "0..1", paramLabel = "iterations", converter = Arguments.Iterations.class,
            description = "buffers per case up to 1 MiB (default 2000; a fiftieth of it, at least 20, above)")
    int iterations = 2000;

    @Override
    public Integer call() {
        PrintStream out = System.out;
        try (RdmaContext context = Rdma.open(RdmaConfig.fromEnvironment())) {
            // Warm-up of every case first (JIT, pool slabs), then the measured passes.
            for (int pass = 0; pass < 2; pass++) {
                if (pass == 1) {
                    out.printf("%-8s %9s %12s%n", "access", "bytes", "us/buffer");
                }
                for (boolean remote : new boolean[] {false, true}) {
                    for (int size : SIZES) {
                        Access[] access = remote ? new Access[] {Access.REMOTE_WRITE} : new Access[0];
                        int n = size > (1 << 20) ? Math.max(20, iterations / 50) : iterations;
                        long start = System.nanoTime();
                        for (int i = 0; i < n; i++) {
                            RegisteredBuffer buffer = context.allocate(size, access);
                            buffer.close();
                        }
                        double us = (System.nanoTime() - start) / 1000.0 / n;
                        if (pass == 1) {
                            out.printf("%-8s %9d %12.2f%n", remote ? "remote" : "local", size, us);
                        }
                    }
                }
            }
        }
        return 0;
    }
}
