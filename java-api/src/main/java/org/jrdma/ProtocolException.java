package org.jrdma;

/** The peer sent something the protocol does not allow; the channel is closed. */
public class ProtocolException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /**
     * The failure.
     *
     * @param message what failed and why
     */
    public ProtocolException(String message) {
        super(message, 0);
    }
}
