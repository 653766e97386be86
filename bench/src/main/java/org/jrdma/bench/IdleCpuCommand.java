package org.jrdma.bench;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jrdma.PollMode;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RegisteredBuffer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code idle-cpu}: what a context's event-loop thread costs when nothing happens. A context with
 * one open channel (to itself) runs 2000 ping-pongs of 64 bytes, so that the adaptive mode has
 * learned to spin, and then stays idle; the CPU time its loop thread used while idle is reported
 * as a share of one core, for each poll mode asked for.
 */
@Command(name = "idle-cpu", mixinStandardHelpOptions = true,
        description = "CPU used by an idle context's event loop (after traffic), per poll mode")
final class IdleCpuCommand implements Callable<Integer> {
    @Option(names = "--seconds", paramLabel = "N", converter = Arguments.Seconds.class,
            description = "idle time measured per mode, 1..3600 (default 10)")
    int seconds = 10;

    @Option(names = "--modes", split = ",", paramLabel = "MODE",
            description = "poll modes to measure: event, adaptive, busy (default: event,adaptive)")
    List<PollMode> modes = List.of(PollMode.EVENT, PollMode.ADAPTIVE);

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (!threads.isThreadCpuTimeSupported()) {
            throw new IllegalStateException("this JVM cannot measure thread CPU time");
        }
        for (PollMode mode : modes) {
            try (RdmaContext ctx = Rdma.open(RdmaConfig.builder().pollMode(mode).build())) {
                if (mode == modes.get(0)) {
                    BenchCommand.emulationNotice(ctx, out);
                }
                var address = new InetSocketAddress(PingPongCommand.gidAddress(ctx), 0);
                RegisteredBuffer reply = ctx.allocate(4096);
                var server = ctx.listen(address, (channel, message) -> channel.send(reply, 0, message.length()));
                SynchronousQueue<Integer> echoes = new SynchronousQueue<>();
                RdmaChannel channel = ctx.connect(server.localAddress(), address.getAddress(), (ch, m) -> {
                    try {
                        echoes.put(m.length());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }).get(30, TimeUnit.SECONDS);
                RegisteredBuffer request = ctx.allocate(4096);
                for (int i = 0; i < 2000; i++) {
                    channel.send(request, 0, 64);
                    if (echoes.poll(10, TimeUnit.SECONDS) == null) {
                        throw new IllegalStateException("no echo within 10 s");
                    }
                }
                long loop = loopThreadId(ctx);
                long cpuBefore = threads.getThreadCpuTime(loop);
                long start = System.nanoTime();
                long end = start + TimeUnit.SECONDS.toNanos(seconds);
                for (long now = start; now < end; now = System.nanoTime()) {
                    LockSupport.parkNanos(end - now); // idle: nothing sent, nothing received
                }
                double share = (threads.getThreadCpuTime(loop) - cpuBefore) / (double) (System.nanoTime() - start);
                out.printf(Locale.ROOT, "%-8s idle %d s after 2000 round trips: the loop thread used %.2f %% of a core%n",
                        mode.name().toLowerCase(Locale.ROOT), seconds, 100 * share);
                channel.close();
                server.close();
            }
        }
        return 0;
    }

    /** The context's event-loop thread ("jrdma-loop-DEVICE", the newest if several). */
    private static long loopThreadId(RdmaContext ctx) {
        String name = "jrdma-loop-" + ctx.device().name();
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name) && t.isAlive())
                .mapToLong(Thread::getId).max()
                .orElseThrow(() -> new IllegalStateException("no thread named " + name));
    }
}
