package org.jrdma.keyed;

import org.jrdma.RdmaException;

/**
 * The producer could not make the value and said why ({@link KeyedStore#publishError}, TensorFlow's
 * error status).
 */
public class FetchFailedException extends RdmaException {
    private static final long serialVersionUID = 1L;

    private final String producerReason;

    /**
     * The failure.
     *
     * @param message        what was fetched and why it failed
     * @param producerReason the producer's own text
     */
    public FetchFailedException(String message, String producerReason) {
        super(message, 0);
        this.producerReason = producerReason;
    }

    /**
     * The producer's text, as it sent it (decoded as UTF-8, leniently).
     *
     * @return why the producer could not make the value
     */
    public String producerReason() {
        return producerReason;
    }
}
