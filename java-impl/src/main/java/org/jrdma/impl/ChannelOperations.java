package org.jrdma.impl;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.jrdma.Access;
import org.jrdma.RdmaChannel;
import org.jrdma.RegisteredBuffer;
import org.jrdma.RemoteBuffer;

/**
 * The operations a channel offers, as the API names them: arguments checked and turned into a
 * {@link ChannelOp} ({@link Operations}), which {@link #submit} hands to the engine. The operation
 * is itself the returned future. Implemented by {@link JniChannel} and by {@link DeadlineChannel}, its
 * view whose operations carry a deadline.
 */
interface ChannelOperations extends RdmaChannel {
    /** The channel itself (the view's underlying channel). */
    JniChannel channel();

    /** Queues the operation for the engine (or fails it when the channel is not open). */
    ChannelOp submit(ChannelOp op);

    @Override
    default CompletableFuture<Void> send(RegisteredBuffer buffer, int offset, int length) {
        return typed(submit(Operations.send(channel().context, buffer, offset, length, maxMessageSize())));
    }

    @Override
    default CompletableFuture<Integer> receive(RegisteredBuffer buffer, int offset, int length) {
        return typed(submit(Operations.receive(channel().context, buffer, offset, length)));
    }

    @Override
    default CompletableFuture<Void> write(RegisteredBuffer local, int offset, RemoteBuffer remoteBuffer, long remoteOffset,
                                          int length) {
        return typed(submit(Operations.write(channel().context, local, offset, remoteBuffer, remoteOffset, length, false, 0)));
    }

    @Override
    default CompletableFuture<Void> writeWithImmediate(RegisteredBuffer local, int offset, RemoteBuffer remoteBuffer,
                                                       long remoteOffset, int length, int immediate) {
        return typed(submit(Operations.write(channel().context, local, offset, remoteBuffer, remoteOffset, length, true,
                immediate)));
    }

    @Override
    default CompletableFuture<Void> read(RemoteBuffer remoteBuffer, long remoteOffset, RegisteredBuffer local, int offset,
                                         int length) {
        return typed(submit(Operations.read(channel().context, remoteBuffer, remoteOffset, local, offset, length)));
    }

    @Override
    default CompletableFuture<Long> compareAndSwap(RemoteBuffer remoteBuffer, long remoteOffset, long expected,
                                                   long newValue) {
        return typed(submit(Operations.atomic(ChannelOp.Kind.COMPARE_AND_SWAP, remoteBuffer, remoteOffset, expected,
                newValue)));
    }

    @Override
    default CompletableFuture<Long> fetchAndAdd(RemoteBuffer remoteBuffer, long remoteOffset, long delta) {
        return typed(submit(Operations.atomic(ChannelOp.Kind.FETCH_AND_ADD, remoteBuffer, remoteOffset, delta, 0)));
    }

    @Override
    default CompletableFuture<RemoteBuffer> allocateRemote(int size, Access... access) {
        return typed(submit(Operations.allocateRemote(size, access)));
    }

    @Override
    default CompletableFuture<Void> releaseRemote(RemoteBuffer allocated) {
        channel().agent().forgetGrant(allocated); // only what the peer allocated for this channel, once
        return typed(submit(Operations.releaseRemote(allocated)));
    }

    @Override
    default CompletableFuture<RemoteBuffer> sendToken(RegisteredBuffer buffer, Access... access) {
        BufferBase source = Operations.tokenSource(channel().context, buffer, access);
        source.acquire(); // open while its token is made
        try {
            MemoryRegistration token = channel().agent().grant(source, AccessFlags.mask(access));
            RemoteBuffer sent = new RemoteBuffer(token.address, token.length, token.rkey);
            return submit(Operations.sendToken(source, token, access)).thenApply(done -> sent);
        } finally {
            source.release();
        }
    }

    @Override
    default RdmaChannel withDeadline(Duration deadline) {
        return new DeadlineChannel(channel(), DeadlineChannel.millis(deadline));
    }

    /** The operation is its own future; its value is null (Void), an atomic's Long or a RemoteBuffer. */
    @SuppressWarnings("unchecked")
    static <T> CompletableFuture<T> typed(ChannelOp op) {
        return (CompletableFuture<T>) (CompletableFuture<?>) op;
    }
}
