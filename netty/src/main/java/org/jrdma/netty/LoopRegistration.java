package org.jrdma.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import java.util.function.Supplier;

/**
 * A channel's tie to its event loop's {@link RdmaIoHandler}, for both channel kinds: registers with the
 * loop, gives the loop's context and allocator, and lets the loop close the channel when it shuts down.
 */
final class LoopRegistration implements RdmaIoHandle {
    private final Channel channel;
    private final Supplier<String> state;
    private IoRegistration registration; // the channel's loop only

    /** {@code state}: a line on what the channel holds, for a report on a program that stopped making progress. */
    LoopRegistration(Channel channel, Supplier<String> state) {
        this.channel = channel;
        this.state = state;
    }

    /** {@return whether {@code loop} runs {@link RdmaIoHandler}s} */
    static boolean fits(EventLoop loop) {
        return loop instanceof IoEventLoop ioLoop && ioLoop.isCompatible(LoopRegistration.class);
    }

    /** Registers with the channel's loop; completes {@code promise}, then runs {@code registered} on success. */
    void register(ChannelPromise promise, Runnable registered) {
        ((IoEventLoop) channel.eventLoop()).register(this).addListener(f -> {
            if (f.isSuccess()) {
                registration = (IoRegistration) f.getNow();
                promise.setSuccess();
                registered.run();
            } else {
                promise.setFailure(f.cause());
            }
        });
    }

    void cancel() {
        if (registration != null) {
            registration.cancel();
            registration = null;
        }
    }

    /** {@return the context (and its allocator) of the loop the channel is registered with} */
    LoopContext context() {
        return registration.attachment();
    }

    @Override
    public String describe() {
        return state.get();
    }

    @Override
    public void closeNow() {
        channel.unsafe().close(channel.unsafe().voidPromise());
    }

    @Override
    public void closeForcibly() {
        channel.unsafe().closeForcibly();
    }
}
