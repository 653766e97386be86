package org.jrdma;

/**
 * The channel closed because nothing arrived from the peer for longer than the keepalive bound
 * ({@link RdmaConfig#keepaliveMillis()}): the peer process is stopped or hung, or the network no
 * longer carries its packets. (Its device may still acknowledge our sends; only its messages count.)
 */
public class PeerSilentException extends RdmaClosedException {
    private static final long serialVersionUID = 1L;

    private final long silentMillis;

    public PeerSilentException(String message, long silentMillis) {
        super(message);
        this.silentMillis = silentMillis;
    }

    /** How long nothing had arrived when the channel closed. */
    public long silentMillis() {
        return silentMillis;
    }
}
