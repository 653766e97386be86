package org.jrdma;

/**
 * The channel closed because nothing arrived from the peer for longer than the keepalive bound
 * ({@link RdmaConfig#keepaliveMillis()}): the peer process is stopped or hung, or the network no
 * longer carries its packets. (Its device may still acknowledge our sends; only its messages count.)
 */
public class PeerSilentException extends RdmaClosedException {
    private static final long serialVersionUID = 1L;

    /** How long nothing had arrived. */
    private final long silentMillis;

    /**
     * The failure.
     *
     * @param message      what failed and why
     * @param silentMillis how long nothing had arrived
     */
    public PeerSilentException(String message, long silentMillis) {
        super(message);
        this.silentMillis = silentMillis;
    }

    /** {@return how long nothing had arrived when the channel closed} */
    public long silentMillis() {
        return silentMillis;
    }
}
