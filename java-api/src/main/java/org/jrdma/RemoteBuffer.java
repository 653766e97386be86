package org.jrdma;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A token for memory a peer registered with remote access: its address, length and rkey. Obtain
 * it with {@link RegisteredBuffer#remote()} and pass it to the peer as bytes ({@link #toBytes()},
 * {@link #fromBytes(ByteBuffer)}). Operations check offsets against it before posting.
 *
 * @param address virtual address of the first byte at the owner
 * @param length  bytes covered
 * @param rkey    remote key
 */
public record RemoteBuffer(long address, long length, int rkey) {
    /** Encoded size: address (8), length (8), rkey (4), little-endian. */
    public static final int BYTES = 20;

    public RemoteBuffer {
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length);
        }
        if (address + length < address && address + length != 0) {
            throw new IllegalArgumentException("address + length overflows: " + Long.toUnsignedString(address) + " + " + length);
        }
    }

    public byte[] toBytes() {
        ByteBuffer out = ByteBuffer.allocate(BYTES).order(ByteOrder.LITTLE_ENDIAN);
        out.putLong(address).putLong(length).putInt(rkey);
        return out.array();
    }

    /** Writes the 20-byte encoding at the buffer's position. */
    public void writeTo(ByteBuffer out) {
        ByteBuffer le = out.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        le.putLong(address).putLong(length).putInt(rkey);
        out.position(out.position() + BYTES);
    }

    /** Reads a token from the next 20 bytes; rejects short input and invalid values. */
    public static RemoteBuffer fromBytes(ByteBuffer in) {
        if (in.remaining() < BYTES) {
            throw new IllegalArgumentException("a RemoteBuffer needs " + BYTES + " bytes, got " + in.remaining());
        }
        ByteBuffer le = in.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        RemoteBuffer token = new RemoteBuffer(le.getLong(), le.getLong(), le.getInt());
        in.position(in.position() + BYTES);
        return token;
    }

    public static RemoteBuffer fromBytes(byte[] bytes) {
        if (bytes.length != BYTES) {
            throw new IllegalArgumentException("a RemoteBuffer is " + BYTES + " bytes, got " + bytes.length);
        }
        return fromBytes(ByteBuffer.wrap(bytes));
    }

    /** Checks that [offset, offset + count) lies inside; throws IllegalArgumentException otherwise. */
    public void checkRange(long offset, long count) {
        if (offset < 0 || count < 0 || offset > length || count > length - offset) {
            throw new IllegalArgumentException("range [" + offset + ", " + offset + "+" + count + ") outside the remote buffer of "
                    + length + " bytes");
        }
    }
}
