package org.jrdma.kv;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.jrdma.ProtocolException;

/**
 * The request/response messages of {@link SimpleApp} (docs/kv.md, "SimpleApp"), little-endian: a 24-byte
 * header — u8 type, u8 status, u16 reserved, u32 head, u64 id, u32 body length, u32 reserved — then the
 * body. Every field is checked before use; a violation is a {@link ProtocolException} that ends the channel.
 */
final class SimpleWire {
    static final byte REQUEST = 1;
    static final byte RESPONSE = 2;
    static final int OK = 0;
    static final int FAILED = 1; // the body is the responder's error text, UTF-8
    static final int HEADER = 24;

    /** One message, checked; its body copied out of the payload (which is valid only while it is handled). */
    record Message(byte type, int status, int head, long id, byte[] body) {
    }

    private SimpleWire() {
    }

    static void encode(ByteBuffer out, byte type, int status, int head, long id, byte[] body) {
        out.order(ByteOrder.LITTLE_ENDIAN).put(0, type).put(1, (byte) status).putShort(2, (short) 0).putInt(4, head)
                .putLong(8, id).putInt(16, body.length).putInt(20, 0).put(HEADER, body);
    }

    /** The message in {@code in}, whose body may hold at most {@code maxBody} bytes. */
    static Message decode(ByteBuffer in, int maxBody) {
        in.order(ByteOrder.LITTLE_ENDIAN);
        int length = in.remaining();
        if (length < HEADER) {
            throw new ProtocolException("a SimpleApp message of " + length + " bytes (the header alone is " + HEADER + ")");
        }
        int at = in.position();
        byte type = in.get(at);
        int status = in.get(at + 1);
        if (type != REQUEST && type != RESPONSE) {
            throw new ProtocolException("a SimpleApp message of unknown type " + type);
        }
        if (in.getShort(at + 2) != 0 || in.getInt(at + 20) != 0 || (type == REQUEST && status != OK)
                || (status != OK && status != FAILED)) {
            throw new ProtocolException("a malformed SimpleApp header (type " + type + ", status " + status + ")");
        }
        int bodyLength = in.getInt(at + 16);
        if (bodyLength < 0 || bodyLength > maxBody || bodyLength != length - HEADER) {
            throw new ProtocolException("a SimpleApp body of " + Integer.toUnsignedString(bodyLength) + " bytes in a message of "
                    + length + " (at most " + maxBody + ")");
        }
        byte[] body = new byte[bodyLength];
        in.get(at + HEADER, body);
        return new Message(type, status, in.getInt(at + 4), in.getLong(at + 8), body);
    }
}
