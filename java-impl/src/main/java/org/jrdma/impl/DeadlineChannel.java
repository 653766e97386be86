package org.jrdma.impl;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jrdma.ChannelCounters;
import org.jrdma.ChannelHandler;
import org.jrdma.RdmaChannel;

/**
 * A view of a channel whose operations each carry a deadline ({@link RdmaChannel#withDeadline}): the
 * engine closes the channel with an {@link org.jrdma.OperationTimeoutException} naming the operation when
 * one is not reported within it (native/src/protocol/channel_engine_watch.cc). Everything else is the
 * channel's own.
 */
final class DeadlineChannel implements ChannelOperations {
    /** The longest deadline: a day, as for {@link org.jrdma.RdmaConfig#operationTimeoutMillis()}. */
    static final long MAX_MILLIS = 86_400_000L;

    private final JniChannel channel;
    private final int deadlineMillis;

    DeadlineChannel(JniChannel channel, int deadlineMillis) {
        this.channel = channel;
        this.deadlineMillis = deadlineMillis;
    }

    /** The deadline in whole milliseconds, rounded up; 1 ms to a day. */
    static int millis(Duration deadline) {
        Objects.requireNonNull(deadline, "deadline");
        if (deadline.isNegative() || deadline.isZero() || deadline.compareTo(Duration.ofMillis(MAX_MILLIS)) > 0) {
            throw new IllegalArgumentException("deadline " + deadline + " is out of range: more than zero, at most "
                    + Duration.ofMillis(MAX_MILLIS));
        }
        long millis = deadline.toMillis();
        return (int) (Duration.ofMillis(millis).equals(deadline) ? millis : millis + 1);
    }

    @Override
    public JniChannel channel() {
        return channel;
    }

    @Override
    public ChannelOp submit(ChannelOp op) {
        op.deadlineMillis = deadlineMillis;
        return channel.submit(op);
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return channel.remoteAddress();
    }

    @Override
    public InetSocketAddress localAddress() {
        return channel.localAddress();
    }

    @Override
    public int maxMessageSize() {
        return channel.maxMessageSize();
    }

    @Override
    public void setHandler(ChannelHandler handler) {
        channel.setHandler(handler);
    }

    @Override
    public boolean isOpen() {
        return channel.isOpen();
    }

    @Override
    public CompletableFuture<Throwable> closeFuture() {
        return channel.closeFuture();
    }

    @Override
    public ChannelCounters counters() {
        return channel.counters();
    }

    @Override
    public void close() {
        channel.close();
    }

    @Override
    public String toString() {
        return channel + " (operations with a deadline of " + deadlineMillis + " ms)";
    }
}
