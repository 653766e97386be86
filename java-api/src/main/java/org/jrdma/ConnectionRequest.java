package org.jrdma;

import java.net.InetSocketAddress;

/**
 * An incoming connection as an {@link AdmissionPolicy} sees it: where it comes from and the connect
 * data the client sent ({@link RdmaContext#connect(InetSocketAddress, java.net.InetAddress, ChannelHandler, byte[])},
 * up to {@link #MAX_DATA} bytes). Neither is authenticated: an address can be spoofed on the fabric,
 * and the data is whatever the client chose to send.
 */
public final class ConnectionRequest {
    /** Connect data that fits a connect request's private data after jrdma's handshake. */
    public static final int MAX_DATA = 23;

    private final InetSocketAddress peer;
    private final byte[] data;

    /**
     * A request as a policy sees it.
     *
     * @param peer the client's address
     * @param data its connect data (copied)
     */
    public ConnectionRequest(InetSocketAddress peer, byte[] data) {
        this.peer = peer;
        this.data = data.clone();
    }

    /** {@return the client's address} */
    public InetSocketAddress peer() {
        return peer;
    }

    /** {@return a copy of the client's connect data (empty if it sent none)} */
    public byte[] data() {
        return data.clone();
    }

    @Override
    public String toString() {
        return "connection request from " + peer + " with " + data.length + " bytes of connect data";
    }
}
