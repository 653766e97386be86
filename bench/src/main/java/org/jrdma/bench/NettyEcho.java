package org.jrdma.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Raw Netty (no gRPC): an echo ping-pong of small messages and a one-way stream of large ones, both
 * driven inside the client's event loop (the next request goes out from the handler that saw the
 * last answer), so the figures are the transport's and Netty's, not a thread hand-off's.
 */
final class NettyEcho {
    private NettyEcho() {
    }

    /** Round trips of {@code size} bytes: the server echoes what it reads. */
    static Histogram pingPong(NettyTransports transport, NettyEndpoints endpoints, int size, int warmup, int iterations)
            throws Exception {
        EventLoopGroup serverGroup = endpoints.serverGroup(transport);
        EventLoopGroup clientGroup = endpoints.clientGroup(transport);
        try {
            Channel server = new ServerBootstrap().group(serverGroup).channel(transport.serverChannel())
                    .childOption(ChannelOption.TCP_NODELAY, true).childHandler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ctx.write(msg);
                        }

                        @Override
                        public void channelReadComplete(ChannelHandlerContext ctx) {
                            ctx.flush();
                        }
                    }).bind(endpoints.server()).sync().channel();
            Histogram rtt = new Histogram(3);
            CompletableFuture<Void> done = new CompletableFuture<>();
            ByteBuf request = Unpooled.directBuffer(size).writeZero(size);
            Channel client = endpoints.bindClient(new Bootstrap()).group(clientGroup).channel(transport.channel())
                    .option(ChannelOption.TCP_NODELAY, true).handler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                                private int round;
                                private int received;
                                private long sent;

                                @Override
                                public void channelActive(ChannelHandlerContext ctx) {
                                    send(ctx);
                                }

                                private void send(ChannelHandlerContext ctx) {
                                    sent = System.nanoTime();
                                    ctx.writeAndFlush(request.retainedDuplicate());
                                }

                                @Override
                                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                    received += ((ByteBuf) msg).readableBytes();
                                    ReferenceCountUtil.release(msg);
                                    if (received < size) {
                                        return;
                                    }
                                    received -= size;
                                    if (round++ >= warmup) {
                                        rtt.recordValue((System.nanoTime() - sent) / 10); // tenths of microseconds
                                    }
                                    if (round < warmup + iterations) {
                                        send(ctx);
                                    } else {
                                        done.complete(null);
                                    }
                                }

                                @Override
                                public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                    done.completeExceptionally(cause);
                                }
                            });
                        }
                    }).connect(server.localAddress()).sync().channel();
            done.get(120, TimeUnit.SECONDS);
            client.close().sync();
            server.close().sync();
            request.release();
            return rtt;
        } finally {
            clientGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
            serverGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    /** MiB/s of {@code count} messages of {@code size} bytes, timed until the server's one-byte answer to the last. */
    static double stream(NettyTransports transport, NettyEndpoints endpoints, int size, int count) throws Exception {
        EventLoopGroup serverGroup = endpoints.serverGroup(transport);
        EventLoopGroup clientGroup = endpoints.clientGroup(transport);
        long total = (long) size * count;
        try {
            Channel server = new ServerBootstrap().group(serverGroup).channel(transport.serverChannel())
                    .childHandler(new ChannelInboundHandlerAdapter() {
                        private long received;

                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            received += ((ByteBuf) msg).readableBytes();
                            ReferenceCountUtil.release(msg);
                            if (received == total) {
                                ctx.writeAndFlush(Unpooled.wrappedBuffer(new byte[1]));
                            }
                        }
                    }).bind(endpoints.server()).sync().channel();
            CompletableFuture<Long> done = new CompletableFuture<>();
            // From the channel's allocator, as Netty programs write (over jrdma: registered memory, sent without a copy).
            ByteBuf[] message = new ByteBuf[1];
            long[] start = new long[1];
            Channel client = endpoints.bindClient(new Bootstrap()).group(clientGroup).channel(transport.channel())
                    .handler(new ChannelInboundHandlerAdapter() {
                        private int written;

                        @Override
                        public void channelActive(ChannelHandlerContext ctx) {
                            message[0] = ctx.alloc().directBuffer(size).writeZero(size);
                            start[0] = System.nanoTime();
                            writeWhileWritable(ctx);
                        }

                        @Override
                        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                            writeWhileWritable(ctx);
                        }

                        private void writeWhileWritable(ChannelHandlerContext ctx) {
                            while (written < count && ctx.channel().isWritable()) {
                                ctx.write(message[0].retainedDuplicate());
                                written++;
                            }
                            ctx.flush();
                        }

                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ReferenceCountUtil.release(msg);
                            done.complete(System.nanoTime() - start[0]);
                        }

                        @Override
                        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                            done.completeExceptionally(cause);
                        }
                    }).connect(server.localAddress()).sync().channel();
            long nanos = done.get(300, TimeUnit.SECONDS);
            client.close().sync();
            server.close().sync();
            message[0].release();
            return total / (1024.0 * 1024.0) / (nanos / 1e9);
        } finally {
            clientGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
            serverGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
