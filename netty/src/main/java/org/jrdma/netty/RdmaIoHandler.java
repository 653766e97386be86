package org.jrdma.netty;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoOps;
import io.netty.channel.IoRegistration;
import io.netty.util.concurrent.ThreadAwareExecutor;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jrdma.AsyncEvent;
import org.jrdma.PollMode;
import org.jrdma.Rdma;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;

/**
 * Netty's event loop over one jrdma context: the loop's thread drives the context
 * ({@link PollMode#CALLER}), so jrdma's completions and the channels' pipelines run on it with no
 * thread hop, between Netty's tasks and timers. Use it with
 * {@code new MultiThreadIoEventLoopGroup(RdmaIoHandler.newFactory())}.
 */
public final class RdmaIoHandler implements IoHandler {
    private static final InternalLogger LOG = InternalLoggerFactory.getInstance(RdmaIoHandler.class);
    private final ThreadAwareExecutor executor;
    private final RdmaContext context;
    private final LoopContext loopContext;
    private final Set<RdmaIoHandle> registered = new HashSet<>();

    private RdmaIoHandler(ThreadAwareExecutor executor, RdmaConfig config) {
        this.executor = Objects.requireNonNull(executor, "executor");
        // Opened here, not on the loop's thread, so that a group that cannot work fails where it is created.
        this.context = Rdma.open(config.toBuilder().pollMode(PollMode.CALLER).build());
        this.loopContext = new LoopContext(context);
        // A device's asynchronous errors (a queue pair's access or request error, a port going down) end channels whose
        // own operations then only say "flushed": logged, so that such an end can be traced to its cause.
        context.addAsyncEventListener(event -> {
            if (event.severity() == AsyncEvent.Severity.INFO) {
                LOG.debug("{}: {}", context, event);
            } else {
                LOG.warn("{}: {}", context, event);
            }
        });
    }

    /** {@return a factory of handlers configured by the RDMA_* environment variables ({@link RdmaConfig#fromEnvironment()})} */
    public static IoHandlerFactory newFactory() {
        return newFactory(RdmaConfig.fromEnvironment());
    }

    /**
     * A factory of handlers whose contexts use {@code config}; its poll mode is replaced by
     * {@link PollMode#CALLER} (the loop's thread drives the context; it spins briefly before it sleeps,
     * for a time learned as {@link PollMode#ADAPTIVE} does).
     *
     * @param config the contexts' configuration (transport, device, sizes, key)
     * @return the factory for {@code MultiThreadIoEventLoopGroup}
     */
    public static IoHandlerFactory newFactory(RdmaConfig config) {
        Objects.requireNonNull(config, "config");
        RdmaTransport.ensureAvailability();
        return executor -> new RdmaIoHandler(executor, config);
    }

    @Override
    public int run(IoHandlerContext loop) {
        long timeoutNanos = loop.canBlock() ? Math.max(0, loop.delayNanos(System.nanoTime())) : 0;
        return context.progress(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void wakeup() {
        if (!executor.isExecutorThread(Thread.currentThread())) {
            context.wakeup();
        }
    }

    @Override
    public IoRegistration register(IoHandle handle) {
        if (!(handle instanceof RdmaIoHandle rdmaHandle)) {
            throw new IllegalArgumentException("not a handle of the jrdma transport: " + handle);
        }
        if (!registered.add(rdmaHandle)) {
            throw new IllegalStateException(handle + " is registered already");
        }
        rdmaHandle.registered();
        return new Registration(rdmaHandle);
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
        return RdmaIoHandle.class.isAssignableFrom(handleType);
    }

    @Override
    public void prepareToDestroy() {
        for (RdmaIoHandle handle : new ArrayList<>(registered)) {
            handle.closeNow();
        }
        registered.clear();
    }

    @Override
    public void destroy() {
        // Netty calls prepareToDestroy only when the loop turns once more after the shutdown began, and a channel
        // may register after it: those still registered are closed here, without the pipeline events a
        // terminated loop can no longer run.
        for (RdmaIoHandle handle : new ArrayList<>(registered)) {
            handle.closeForcibly();
        }
        registered.clear();
        context.close();
    }

    /**
     * {@return a line per channel registered with this loop on its state (writes in flight, reads waiting, the
     * jrdma channel's counters)} For a report on a program or test that stopped making progress: call it on the
     * loop's thread (submit it to the loop), where the state it reads is kept.
     */
    List<String> describeChannels() {
        List<String> lines = new ArrayList<>(registered.size());
        for (RdmaIoHandle handle : registered) {
            lines.add(handle.describe());
        }
        return lines;
    }

    /** A channel's registration: its attachment is this loop's {@link LoopContext}. */
    private final class Registration implements IoRegistration {
        private final AtomicBoolean cancelled = new AtomicBoolean();
        private final RdmaIoHandle handle;

        Registration(RdmaIoHandle handle) {
            this.handle = handle;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T attachment() {
            return (T) loopContext;
        }

        @Override
        public long submit(IoOps ops) {
            throw new UnsupportedOperationException("jrdma channels submit no IoOps");
        }

        @Override
        public boolean isValid() {
            return !cancelled.get();
        }

        @Override
        public boolean cancel() {
            if (!cancelled.compareAndSet(false, true)) {
                return false;
            }
            if (executor.isExecutorThread(Thread.currentThread())) {
                unregister();
            } else {
                executor.execute(this::unregister);
            }
            return true;
        }

        private void unregister() {
            if (registered.remove(handle)) {
                handle.unregistered();
            }
        }
    }
}
