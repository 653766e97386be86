package org.jrdma.netty;

import static io.netty.channel.ChannelOption.ALLOW_HALF_CLOSURE;
import static io.netty.channel.ChannelOption.IP_TOS;
import static io.netty.channel.ChannelOption.SO_KEEPALIVE;
import static io.netty.channel.ChannelOption.SO_LINGER;
import static io.netty.channel.ChannelOption.SO_RCVBUF;
import static io.netty.channel.ChannelOption.SO_REUSEADDR;
import static io.netty.channel.ChannelOption.SO_SNDBUF;
import static io.netty.channel.ChannelOption.TCP_NODELAY;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.MessageSizeEstimator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannelConfig;
import java.util.Map;

/**
 * A {@link RdmaSocketChannel}'s options. The TCP socket options (SO_RCVBUF, SO_SNDBUF, TCP_NODELAY,
 * SO_KEEPALIVE, SO_REUSEADDR, SO_LINGER, IP_TOS) are kept so that programs written for TCP set and read
 * them unchanged, but they do not reach jrdma: its channels are sized by {@link org.jrdma.RdmaConfig}
 * (queue depth, eager size), coalesce small writes until a flush whatever TCP_NODELAY says, and watch
 * liveness with their own keepalive. There is no half-closed state: a peer's close ends the channel.
 */
public final class RdmaSocketChannelConfig extends DefaultChannelConfig implements SocketChannelConfig {
    private volatile int receiveBufferSize = 128 * 1024;
    private volatile int sendBufferSize = 128 * 1024;
    private volatile boolean tcpNoDelay = true;
    private volatile boolean keepAlive;
    private volatile boolean reuseAddress;
    private volatile int soLinger = -1;
    private volatile int trafficClass;
    private volatile boolean allowHalfClosure;
    /** The program's allocator (ALLOCATOR option); null: the context's registered memory, else Netty's default. */
    private volatile ByteBufAllocator chosenAllocator;

    RdmaSocketChannelConfig(RdmaSocketChannel channel) {
        super(channel);
    }

    /**
     * {@inheritDoc} Unless the program chose one, the allocator over the registered memory of the
     * channel's context: large buffers from it are sent without a copy ({@link RegisteredByteBufAllocator}).
     */
    @Override
    public ByteBufAllocator getAllocator() {
        ByteBufAllocator chosen = chosenAllocator;
        if (chosen != null) {
            return chosen;
        }
        ByteBufAllocator registered = ((RdmaSocketChannel) channel).registeredAllocator();
        return registered != null ? registered : super.getAllocator();
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(super.getOptions(), SO_RCVBUF, SO_SNDBUF, TCP_NODELAY, SO_KEEPALIVE, SO_REUSEADDR, SO_LINGER,
                IP_TOS, ALLOW_HALF_CLOSURE);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) {
        Object value = option == SO_RCVBUF ? receiveBufferSize : option == SO_SNDBUF ? sendBufferSize
                : option == TCP_NODELAY ? tcpNoDelay : option == SO_KEEPALIVE ? keepAlive
                : option == SO_REUSEADDR ? reuseAddress : option == SO_LINGER ? soLinger
                : option == IP_TOS ? trafficClass : option == ALLOW_HALF_CLOSURE ? allowHalfClosure : null;
        return value != null ? (T) value : super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (option == SO_RCVBUF) {
            setReceiveBufferSize((Integer) value);
        } else if (option == SO_SNDBUF) {
            setSendBufferSize((Integer) value);
        } else if (option == TCP_NODELAY) {
            setTcpNoDelay((Boolean) value);
        } else if (option == SO_KEEPALIVE) {
            setKeepAlive((Boolean) value);
        } else if (option == SO_REUSEADDR) {
            setReuseAddress((Boolean) value);
        } else if (option == SO_LINGER) {
            setSoLinger((Integer) value);
        } else if (option == IP_TOS) {
            setTrafficClass((Integer) value);
        } else if (option == ALLOW_HALF_CLOSURE) {
            setAllowHalfClosure((Boolean) value);
        } else {
            return super.setOption(option, value);
        }
        return true;
    }

    @Override
    public int getReceiveBufferSize() {
        return receiveBufferSize;
    }

    @Override
    public RdmaSocketChannelConfig setReceiveBufferSize(int size) {
        receiveBufferSize = size;
        return this;
    }

    @Override
    public int getSendBufferSize() {
        return sendBufferSize;
    }

    @Override
    public RdmaSocketChannelConfig setSendBufferSize(int size) {
        sendBufferSize = size;
        return this;
    }

    @Override
    public boolean isTcpNoDelay() {
        return tcpNoDelay;
    }

    @Override
    public RdmaSocketChannelConfig setTcpNoDelay(boolean noDelay) {
        tcpNoDelay = noDelay;
        return this;
    }

    @Override
    public boolean isKeepAlive() {
        return keepAlive;
    }

    @Override
    public RdmaSocketChannelConfig setKeepAlive(boolean on) {
        keepAlive = on;
        return this;
    }

    @Override
    public boolean isReuseAddress() {
        return reuseAddress;
    }

    @Override
    public RdmaSocketChannelConfig setReuseAddress(boolean on) {
        reuseAddress = on;
        return this;
    }

    @Override
    public int getSoLinger() {
        return soLinger;
    }

    @Override
    public RdmaSocketChannelConfig setSoLinger(int seconds) {
        soLinger = seconds;
        return this;
    }

    @Override
    public int getTrafficClass() {
        return trafficClass;
    }

    @Override
    public RdmaSocketChannelConfig setTrafficClass(int value) {
        trafficClass = value;
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        return this;
    }

    @Override
    public boolean isAllowHalfClosure() {
        return allowHalfClosure;
    }

    /**
     * With half-closure allowed, a peer's close is first reported as the input shut down
     * ({@code ChannelInputShutdownEvent}), then the channel closes: a jrdma channel has no half-closed
     * state, and {@code shutdownOutput} is refused.
     */
    @Override
    public RdmaSocketChannelConfig setAllowHalfClosure(boolean allow) {
        allowHalfClosure = allow;
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setConnectTimeoutMillis(int millis) {
        super.setConnectTimeoutMillis(millis);
        return this;
    }

    @Override
    @Deprecated
    public RdmaSocketChannelConfig setMaxMessagesPerRead(int count) {
        super.setMaxMessagesPerRead(count);
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setWriteSpinCount(int count) {
        super.setWriteSpinCount(count);
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setAllocator(ByteBufAllocator allocator) {
        super.setAllocator(allocator);
        chosenAllocator = allocator;
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setRecvByteBufAllocator(RecvByteBufAllocator allocator) {
        super.setRecvByteBufAllocator(allocator);
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setAutoRead(boolean autoRead) {
        super.setAutoRead(autoRead);
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setAutoClose(boolean autoClose) {
        super.setAutoClose(autoClose);
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setMessageSizeEstimator(MessageSizeEstimator estimator) {
        super.setMessageSizeEstimator(estimator);
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setWriteBufferWaterMark(WriteBufferWaterMark writeBufferWaterMark) {
        super.setWriteBufferWaterMark(writeBufferWaterMark);
        return this;
    }
}
