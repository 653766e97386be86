package org.jrdma;

/**
 * A message did not fit the buffer posted for it with {@link RdmaChannel#receive}. The receiver's
 * receive fails with it, and — for a message above the eager size, which is read only once its
 * destination is known — the sender's {@link RdmaChannel#send} fails with it too; nothing was
 * transferred and the channel stays open. {@link #requiredSize()} is the message's length.
 */
public class BufferTooSmallException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /** The message's length. */
    private final long requiredSize;
    /** The posted buffer's size. */
    private final long bufferSize;

    /**
     * The failure.
     *
     * @param message      what failed and why
     * @param requiredSize the message's length
     * @param bufferSize   the size of the posted buffer
     */
    public BufferTooSmallException(String message, long requiredSize, long bufferSize) {
        super(message, 0);
        this.requiredSize = requiredSize;
        this.bufferSize = bufferSize;
    }

    /** {@return the length of the message: a receive of at least this many bytes takes it} */
    public long requiredSize() {
        return requiredSize;
    }

    /** {@return the size of the buffer that was posted for it} */
    public long bufferSize() {
        return bufferSize;
    }
}
