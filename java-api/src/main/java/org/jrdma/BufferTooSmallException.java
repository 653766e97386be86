package org.jrdma;

/**
 * A message did not fit the buffer posted for it with {@link RdmaChannel#receive}. The receiver's
 * receive fails with it, and — for a message above the eager size, which is read only once its
 * destination is known — the sender's {@link RdmaChannel#send} fails with it too; nothing was
 * transferred and the channel stays open. {@link #requiredSize()} is the message's length.
 */
public class BufferTooSmallException extends RdmaException {
    private static final long serialVersionUID = 1L;

    private final long requiredSize;
    private final long bufferSize;

    public BufferTooSmallException(String message, long requiredSize, long bufferSize) {
        super(message, 0);
        this.requiredSize = requiredSize;
        this.bufferSize = bufferSize;
    }

    /** The length of the message: a receive of at least this many bytes takes it. */
    public long requiredSize() {
        return requiredSize;
    }

    /** The size of the buffer that was posted for it. */
    public long bufferSize() {
        return bufferSize;
    }
}
