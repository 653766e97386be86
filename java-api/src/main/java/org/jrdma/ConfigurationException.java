package org.jrdma;

/** An invalid or ambiguous configuration value; the message names the variable, the value and what is allowed. */
public class ConfigurationException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /**
     * The failure.
     *
     * @param message what failed and why
     */
    public ConfigurationException(String message) {
        super(message, 0);
    }
}
