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

    /**
     * Checks the range.
     *
     * @param address virtual address of the first byte at the owner
     * @param length  bytes covered (not negative; address + length must not wrap)
     * @param rkey    remote key
     */
    public RemoteBuffer {
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length);
        }
        if (address + length < address && address + length != 0) {
            throw new IllegalArgumentException("address + length overflows: " + Long.toUnsignedString(address) + " + " + length);
        }
    }

    /**
     * The 20-byte encoding.
     *
     * @return address, length and rkey, little-endian
     */
    public byte[] toBytes() {
        ByteBuffer out = ByteBuffer.allocate(BYTES).order(ByteOrder.LITTLE_ENDIAN);
        out.putLong(address).putLong(length).putInt(rkey);
        return out.array();
    }

    /**
     * Writes the 20-byte encoding at the buffer's position and advances it.
     *
     * @param out where to write (at least {@link #BYTES} remaining)
     */
    public void writeTo(ByteBuffer out) {
        ByteBuffer le = out.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        le.putLong(address).putLong(length).putInt(rkey);
        out.position(out.position() + BYTES);
    }

    /**
     * Reads a token from the next 20 bytes and advances past them; rejects short input and invalid values.
     *
     * @param in the encoding at its position
     * @return the token
     */
    public static RemoteBuffer fromBytes(ByteBuffer in) {
        if (in.remaining() < BYTES) {
            throw new IllegalArgumentException("a RemoteBuffer needs " + BYTES + " bytes, got " + in.remaining());
        }
        ByteBuffer le = in.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        RemoteBuffer token = new RemoteBuffer(le.getLong(), le.getLong(), le.getInt());
        in.position(in.position() + BYTES);
        return token;
    }

    /**
     * Reads a token from exactly 20 bytes.
     *
     * @param bytes the encoding
     * @return the token
     */
    public static RemoteBuffer fromBytes(byte[] bytes) {
        if (bytes.length != BYTES) {
            throw new IllegalArgumentException("a RemoteBuffer is " + BYTES + " bytes, got " + bytes.length);
        }
        return fromBytes(ByteBuffer.wrap(bytes));
    }

    /**
     * Checks that [offset, offset + count) lies inside.
     *
     * @param offset where the range starts
     * @param count  bytes in it
     * @throws IllegalArgumentException when it does not lie inside
     */
    public void checkRange(long offset, long count) {
        if (offset < 0 || count < 0 || offset > length || count > length - offset) {
            throw new IllegalArgumentException("range [" + offset + ", " + offset + "+" + count + ") outside the remote buffer of "
                    + length + " bytes");
        }
    }
}
