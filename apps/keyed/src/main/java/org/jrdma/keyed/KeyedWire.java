package org.jrdma.keyed;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;
import org.jrdma.ProtocolException;
import org.jrdma.RemoteBuffer;

/**
 * The keyed-transfer messages (docs/keyed.md), little-endian. Every field from the peer is checked
 * here before anything uses it: a violation is a {@link ProtocolException} that ends the channel.
 */
final class KeyedWire {
    static final byte FETCH = 1;
    static final byte DONE = 2;
    static final byte TOO_SMALL = 3;
    static final byte CANCELLED = 4;
    static final byte CANCEL = 5;
    static final byte ERROR = 6;

    static final int FETCH_HEADER = 40;
    static final int REPLY_HEADER = 16;
    static final int MAX_METADATA = 1024;
    static final int FLAG_DEAD = 1;
    /** DONE: a u32 CRC-32C of the value follows the metadata. FETCH: the consumer asks for it. */
    static final int FLAG_CHECKSUM = 2;
    static final int FETCH_CHECKSUM = 1;

    /** Why a fetch was dropped (CANCELLED's reason byte). */
    static final int CANCELLED_CLEANUP = 1;
    static final int CANCELLED_ON_REQUEST = 2;

    private KeyedWire() {
    }

    /** A consumer's request: where to write the value of key, and whether it wants its CRC-32C. */
    record Fetch(long id, TransferKey key, RemoteBuffer destination, boolean checksum) {
    }

    /**
     * An answer to request {@code id}: DONE (length, metadata, dead), TOO_SMALL (length = needed), CANCELLED
     * or ERROR (metadata = the producer's text); {@code checksum}: DONE's CRC-32C, or -1 when it has none.
     */
    record Reply(byte type, long id, int length, int reason, byte[] metadata, boolean dead, long checksum) {
    }

    static ByteBuffer order(ByteBuffer b) {
        return b.order(ByteOrder.LITTLE_ENDIAN);
    }

    static int encodeFetch(ByteBuffer out, long id, TransferKey key, RemoteBuffer destination, boolean checksum) {
        byte[] name = key.name().getBytes(StandardCharsets.UTF_8);
        order(out).put(0, FETCH).put(1, (byte) (checksum ? FETCH_CHECKSUM : 0)).putShort(2, (short) name.length)
                .putInt(4, (int) Math.min(destination.length(), Integer.MAX_VALUE)).putLong(8, id).putLong(16, key.step())
                .putLong(24, destination.address()).putInt(32, destination.rkey()).putInt(36, 0);
        out.put(FETCH_HEADER, name);
        return FETCH_HEADER + name.length;
    }

    /** DONE; {@code checksum} the value's CRC-32C, or -1 for none. */
    static int encodeDone(ByteBuffer out, long id, int length, byte[] metadata, boolean dead, long checksum) {
        int flags = (dead ? FLAG_DEAD : 0) | (checksum >= 0 ? FLAG_CHECKSUM : 0);
        order(out).put(0, DONE).put(1, (byte) flags).putShort(2, (short) metadata.length).putInt(4, length).putLong(8, id);
        out.put(REPLY_HEADER, metadata);
        if (checksum >= 0) {
            out.putInt(REPLY_HEADER + metadata.length, (int) checksum);
            return REPLY_HEADER + metadata.length + 4;
        }
        return REPLY_HEADER + metadata.length;
    }

    /** The producer could not make the value: its text (UTF-8, at most MAX_METADATA bytes). */
    static int encodeError(ByteBuffer out, long id, byte[] text) {
        order(out).put(0, ERROR).put(1, (byte) 0).putShort(2, (short) text.length).putInt(4, 0).putLong(8, id);
        out.put(REPLY_HEADER, text);
        return REPLY_HEADER + text.length;
    }

    /** TOO_SMALL (needed bytes), CANCELLED (reason) or CANCEL (from the consumer). */
    static int encodeShort(ByteBuffer out, byte type, long id, int value) {
        boolean reason = type == CANCELLED;
        order(out).put(0, type).put(1, (byte) (reason ? value : 0)).putShort(2, (short) 0)
                .putInt(4, reason ? 0 : value).putLong(8, id);
        return REPLY_HEADER;
    }

    /** CRC-32C of bytes [offset, offset + length) of {@code bytes} (TensorFlow's data validation). */
    static long checksum(ByteBuffer bytes, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes.duplicate().limit(offset + length).position(offset));
        return crc.getValue();
    }

    static Fetch decodeFetch(ByteBuffer in) {
        order(in);
        int length = in.remaining();
        if (length < FETCH_HEADER) {
            throw new ProtocolException("a FETCH of " + length + " bytes; its header alone is " + FETCH_HEADER);
        }
        int nameLength = Short.toUnsignedInt(in.getShort(2));
        if ((in.get(1) & ~FETCH_CHECKSUM) != 0 || in.getInt(36) != 0) {
            throw new ProtocolException("a FETCH with reserved bits set");
        }
        if (nameLength == 0 || nameLength > TransferKey.MAX_NAME_BYTES || FETCH_HEADER + nameLength != length) {
            throw new ProtocolException("a FETCH whose key name claims " + nameLength + " bytes in a message of " + length);
        }
        long capacity = Integer.toUnsignedLong(in.getInt(4));
        String name;
        try {
            CharBuffer chars = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(in.duplicate().position(FETCH_HEADER).limit(length));
            name = chars.toString();
        } catch (CharacterCodingException e) {
            throw new ProtocolException("a FETCH whose key name is not UTF-8");
        }
        RemoteBuffer destination = new RemoteBuffer(in.getLong(24), capacity, in.getInt(32));
        return new Fetch(in.getLong(8), new TransferKey(name, in.getLong(16)), destination,
                (in.get(1) & FETCH_CHECKSUM) != 0);
    }

    static Reply decodeReply(ByteBuffer in) {
        order(in);
        int length = in.remaining();
        if (length < REPLY_HEADER) {
            throw new ProtocolException("a keyed reply of " + length + " bytes; its header alone is " + REPLY_HEADER);
        }
        byte type = in.get(0);
        long id = in.getLong(8);
        int value = in.getInt(4);
        switch (type) {
            case DONE: {
                int flags = in.get(1);
                int metadataLength = Short.toUnsignedInt(in.getShort(2));
                int checksumBytes = (flags & FLAG_CHECKSUM) != 0 ? 4 : 0;
                if ((flags & ~(FLAG_DEAD | FLAG_CHECKSUM)) != 0 || metadataLength > MAX_METADATA
                        || REPLY_HEADER + metadataLength + checksumBytes != length || value < 0) {
                    throw new ProtocolException("a malformed DONE (flags " + flags + ", metadata " + metadataLength
                            + " bytes, length " + value + ", message " + length + " bytes)");
                }
                byte[] metadata = new byte[metadataLength];
                in.get(REPLY_HEADER, metadata);
                long checksum = checksumBytes == 0 ? -1 : Integer.toUnsignedLong(in.getInt(REPLY_HEADER + metadataLength));
                return new Reply(DONE, id, value, 0, metadata, (flags & FLAG_DEAD) != 0, checksum);
            }
            case ERROR: {
                int textLength = Short.toUnsignedInt(in.getShort(2));
                if (in.get(1) != 0 || value != 0 || textLength > MAX_METADATA || REPLY_HEADER + textLength != length) {
                    throw new ProtocolException("a malformed ERROR (text " + textLength + " bytes, message " + length + " bytes)");
                }
                byte[] text = new byte[textLength];
                in.get(REPLY_HEADER, text);
                return new Reply(ERROR, id, 0, 0, text, false, -1);
            }
            case TOO_SMALL:
            case CANCELLED:
            case CANCEL: {
                int reason = in.get(1);
                boolean reasonOk = type == CANCELLED ? reason == CANCELLED_CLEANUP || reason == CANCELLED_ON_REQUEST : reason == 0;
                if (length != REPLY_HEADER || !reasonOk || in.getShort(2) != 0 || (type != TOO_SMALL && value != 0)
                        || (type == TOO_SMALL && value < 0)) {
                    throw new ProtocolException("a malformed keyed message of type " + type);
                }
                return new Reply(type, id, value, reason, null, false, -1);
            }
            default:
                throw new ProtocolException("an unknown keyed message type " + type);
        }
    }
}
