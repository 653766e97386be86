package org.jrdma;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;

/** One valid entry of a port's GID table. */
public final class Gid {
    private final int index;
    private final byte[] raw;
    private final GidType type;

    /**
     * A GID table entry.
     *
     * @param index its index in the port's table
     * @param raw   its 16 bytes (copied)
     * @param type  IB, RoCE v1 or RoCE v2
     */
    public Gid(int index, byte[] raw, GidType type) {
        if (raw.length != 16) {
            throw new IllegalArgumentException("a GID has 16 bytes, got " + raw.length);
        }
        this.index = index;
        this.raw = raw.clone();
        this.type = type;
    }

    /** {@return its index in the port's table} */
    public int index() {
        return index;
    }

    /** {@return a copy of its 16 bytes} */
    public byte[] raw() {
        return raw.clone();
    }

    /** {@return IB, RoCE v1 or RoCE v2} */
    public GidType type() {
        return type;
    }

    /** {@return for RoCE entries the IP address the GID stands for (IPv4 for ::ffff:a.b.c.d); empty for IB} */
    public Optional<InetAddress> ip() {
        if (type == GidType.IB) {
            return Optional.empty();
        }
        try {
            // getByAddress turns an IPv4-mapped IPv6 address into an Inet4Address.
            return Optional.of(InetAddress.getByAddress(raw));
        } catch (UnknownHostException impossible) {
            throw new AssertionError(impossible);
        }
    }

    /** {@return the GID in the usual notation, e.g. {@code 0000:0000:0000:0000:0000:ffff:0a4d:0001}} */
    @Override
    public String toString() {
        String hex = HexFormat.of().formatHex(raw);
        StringBuilder text = new StringBuilder(39);
        for (int i = 0; i < 32; i += 4) {
            if (i > 0) {
                text.append(':');
            }
            text.append(hex, i, i + 4);
        }
        return text.toString();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Gid && ((Gid) other).index == index && ((Gid) other).type == type
                && Arrays.equals(((Gid) other).raw, raw);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(raw) + index;
    }
}
