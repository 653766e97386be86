package org.jrdma.netty;

import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ThreadAwareExecutor;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test of this module that runs longer than {@code jrdma.netty.describeAfter} seconds (default 60) prints the
 * state of every channel of the loops it made with {@link #tracked} — writes in flight, reads waiting, each jrdma
 * channel's counters — and again every 120 s while it runs (registered for all tests through
 * junit-platform.properties). A thread dump shows idle loops when a test stops making progress; this shows which
 * side holds what, so that a stall seen once in many runs (over verbs in the VM) can be told apart: bytes never sent,
 * sent and never received, or received and never read.
 */
public final class StallReport implements BeforeEachCallback, AfterEachCallback {
    private record Loop(ThreadAwareExecutor executor, WeakReference<RdmaIoHandler> handler) { }

    private static final List<Loop> LOOPS = new CopyOnWriteArrayList<>();
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "jrdma-netty-stall-report");
        thread.setDaemon(true);
        return thread;
    });
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(StallReport.class);

    /** {@return {@code factory}, whose loops' channels a report on a long test describes} */
    static IoHandlerFactory tracked(IoHandlerFactory factory) {
        return executor -> {
            IoHandler handler = factory.newHandler(executor);
            LOOPS.removeIf(loop -> loop.handler().get() == null || shutDown(loop.executor()));
            LOOPS.add(new Loop(executor, new WeakReference<>((RdmaIoHandler) handler)));
            return handler;
        };
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        long after = Long.getLong("jrdma.netty.describeAfter", 60);
        String test = context.getDisplayName() + " in " + context.getRequiredTestClass().getSimpleName();
        ScheduledFuture<?> report = TIMER.scheduleAtFixedRate(() -> describeAll(test), after, 120, TimeUnit.SECONDS);
        context.getStore(NAMESPACE).put(context.getUniqueId(), report);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        ScheduledFuture<?> report = context.getStore(NAMESPACE).remove(context.getUniqueId(), ScheduledFuture.class);
        if (report != null) {
            report.cancel(false);
        }
    }

    private static void describeAll(String test) {
        System.out.println("jrdma-netty: " + test + " is still running; the channels of its loops:");
        for (String line : describeNow()) {
            System.out.println("jrdma-netty:   " + line);
        }
    }

    /**
     * {@return a line per channel of the live tracked loops} Each loop describes its channels on its own thread,
     * where their state is kept; a loop that does not answer within 10 s is reported as stuck itself.
     */
    static List<String> describeNow() {
        List<String> lines = new ArrayList<>();
        for (Loop loop : LOOPS) {
            RdmaIoHandler handler = loop.handler().get();
            if (handler == null || shutDown(loop.executor())) {
                continue;
            }
            CompletableFuture<List<String>> described = new CompletableFuture<>();
            try {
                loop.executor().execute(() -> described.complete(handler.describeChannels()));
                lines.addAll(described.get(10, TimeUnit.SECONDS));
            } catch (TimeoutException e) {
                lines.add("a loop did not run a task within 10 s: " + loop.executor());
            } catch (RejectedExecutionException e) {
                continue; // shut down meanwhile
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (ExecutionException e) {
                lines.add("a loop failed to describe its channels: " + e.getCause());
            }
        }
        return lines;
    }

    private static boolean shutDown(ThreadAwareExecutor executor) {
        return executor instanceof EventExecutor e && e.isShuttingDown();
    }
}
