package org.jrdma;

/**
 * The peer did not answer a {@link RdmaChannel#allocateRemote} request within
 * {@link AgentLimits#timeoutMillis()}. The channel stays open; if the peer grants the memory later,
 * it is released at once.
 */
public class AgentTimeoutException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /** The deadline that passed. */
    private final long timeoutMillis;

    /**
     * The failure.
     *
     * @param message       what failed and why
     * @param timeoutMillis the deadline that passed
     */
    public AgentTimeoutException(String message, long timeoutMillis) {
        super(message, 0);
        this.timeoutMillis = timeoutMillis;
    }

    /** {@return the bound that passed} */
    public long timeoutMillis() {
        return timeoutMillis;
    }
}
