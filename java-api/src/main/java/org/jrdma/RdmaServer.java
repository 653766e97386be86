package org.jrdma;

import java.net.InetSocketAddress;

/** A listening endpoint: accepts channels and hands them to its handler. */
public interface RdmaServer extends AutoCloseable {
    /** {@return the bound address (with the port chosen when 0 was asked for)} */
    InetSocketAddress localAddress();

    /** Stops accepting; established channels stay open. Idempotent. */
    @Override
    void close();
}
