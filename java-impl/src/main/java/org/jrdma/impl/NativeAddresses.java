package org.jrdma.impl;

import java.net.InetSocketAddress;

/** Addresses as native code writes them for Java: "ip port" (jrdma::address_text, base/socket_address.h). */
final class NativeAddresses {
    private NativeAddresses() {
    }

    /** The address of an "ip port" text; null for null (no peer yet). */
    static InetSocketAddress parse(String ipSpacePort) {
        if (ipSpacePort == null) {
            return null;
        }
        int space = ipSpacePort.lastIndexOf(' ');
        return new InetSocketAddress(ipSpacePort.substring(0, space), Integer.parseInt(ipSpacePort.substring(space + 1)));
    }
}
