package org.jrdma.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.io.ByteArrayOutputStream;
import java.util.concurrent.CompletableFuture;

/**
 * A server side for the tests: gathers what arrives until the expected bytes are there. Shared by the channels a
 * test's server accepts; a test sends its bytes over one of them.
 */
@ChannelHandler.Sharable
final class ByteCollector extends ChannelInboundHandlerAdapter {
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();
    private final CompletableFuture<byte[]> all = new CompletableFuture<>();
    private volatile int expected;

    /** Sets how many bytes make the whole (before they are written). */
    void expect(int bytes) {
        expected = bytes;
    }

    /** {@return the bytes received, once all expected ones are there} */
    CompletableFuture<byte[]> all() {
        return all;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf buf = (ByteBuf) msg;
        try {
            byte[] bytes = new byte[buf.readableBytes()];
            buf.readBytes(bytes);
            received.write(bytes, 0, bytes.length);
            if (expected > 0 && received.size() >= expected) {
                all.complete(received.toByteArray());
            }
        } finally {
            buf.release();
        }
    }
}
