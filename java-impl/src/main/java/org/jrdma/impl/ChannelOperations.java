package org.jrdma.impl;

import java.util.concurrent.CompletableFuture;
import org.jrdma.Access;
import org.jrdma.RdmaChannel;
import org.jrdma.RegisteredBuffer;
import org.jrdma.RemoteBuffer;

/**
 * The operations a channel offers, as the API names them: arguments checked and turned into a
 * {@link ChannelOp} ({@link Operations}), which {@link JniChannel} submits to the engine. The
 * operation is itself the returned future.
 */
abstract class ChannelOperations extends NativeResource implements RdmaChannel {
    final JniContext context;

    ChannelOperations(JniContext context) {
        this.context = context;
    }

    /** Queues the operation for the engine (or fails it when the channel is not open). */
    abstract ChannelOp submit(ChannelOp op);

    abstract RemoteMemoryAgent agent();

    @Override
    public CompletableFuture<Void> send(RegisteredBuffer buffer, int offset, int length) {
        return typed(submit(Operations.send(context, buffer, offset, length, maxMessageSize())));
    }

    @Override
    public CompletableFuture<Integer> receive(RegisteredBuffer buffer, int offset, int length) {
        return typed(submit(Operations.receive(context, buffer, offset, length)));
    }

    @Override
    public CompletableFuture<Void> write(RegisteredBuffer local, int offset, RemoteBuffer remoteBuffer, long remoteOffset,
                                         int length) {
        return typed(submit(Operations.write(context, local, offset, remoteBuffer, remoteOffset, length, false, 0)));
    }

    @Override
    public CompletableFuture<Void> writeWithImmediate(RegisteredBuffer local, int offset, RemoteBuffer remoteBuffer,
                                                      long remoteOffset, int length, int immediate) {
        return typed(submit(Operations.write(context, local, offset, remoteBuffer, remoteOffset, length, true, immediate)));
    }

    @Override
    public CompletableFuture<Void> read(RemoteBuffer remoteBuffer, long remoteOffset, RegisteredBuffer local, int offset,
                                        int length) {
        return typed(submit(Operations.read(context, remoteBuffer, remoteOffset, local, offset, length)));
    }

    @Override
    public CompletableFuture<Long> compareAndSwap(RemoteBuffer remoteBuffer, long remoteOffset, long expected, long newValue) {
        return typed(submit(Operations.atomic(ChannelOp.Kind.COMPARE_AND_SWAP, remoteBuffer, remoteOffset, expected, newValue)));
    }

    @Override
    public CompletableFuture<Long> fetchAndAdd(RemoteBuffer remoteBuffer, long remoteOffset, long delta) {
        return typed(submit(Operations.atomic(ChannelOp.Kind.FETCH_AND_ADD, remoteBuffer, remoteOffset, delta, 0)));
    }

    @Override
    public CompletableFuture<RemoteBuffer> allocateRemote(int size, Access... access) {
        return typed(submit(Operations.allocateRemote(size, access)));
    }

    @Override
    public CompletableFuture<Void> releaseRemote(RemoteBuffer allocated) {
        agent().forgetGrant(allocated); // only what the peer allocated for this channel, once
        return typed(submit(Operations.releaseRemote(allocated)));
    }

    @Override
    public CompletableFuture<RemoteBuffer> sendToken(RegisteredBuffer buffer, Access... access) {
        BufferBase source = Operations.tokenSource(context, buffer, access);
        source.acquire(); // open while its token is made
        try {
            MemoryRegistration token = agent().grant(source, AccessFlags.mask(access));
            RemoteBuffer sent = new RemoteBuffer(token.address, token.length, token.rkey);
            return submit(Operations.sendToken(source, token, access)).thenApply(done -> sent);
        } finally {
            source.release();
        }
    }

    /** The operation is its own future; its value is null (Void), an atomic's Long or a RemoteBuffer. */
    @SuppressWarnings("unchecked")
    static <T> CompletableFuture<T> typed(ChannelOp op) {
        return (CompletableFuture<T>) (CompletableFuture<?>) op;
    }
}
