package org.jrdma;

/**
 * The peer did not answer a {@link RdmaChannel#allocateRemote} request within
 * {@link AgentLimits#timeoutMillis()}. The channel stays open; if the peer grants the memory later,
 * it is released at once.
 */
public class AgentTimeoutException extends RdmaException {
    private static final long serialVersionUID = 1L;

    private final long timeoutMillis;

    public AgentTimeoutException(String message, long timeoutMillis) {
        super(message, 0);
        this.timeoutMillis = timeoutMillis;
    }

    /** The bound that passed. */
    public long timeoutMillis() {
        return timeoutMillis;
    }
}
