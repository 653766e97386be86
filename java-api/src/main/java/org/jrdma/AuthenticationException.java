package org.jrdma;

/**
 * Mutual authentication with the pre-shared key ({@link RdmaConfigBuilder#preSharedKey}) failed:
 * the keys differ, the peer gave no proof in time, or one side has no key. No channel was opened on
 * either side.
 */
public class AuthenticationException extends ConnectionException {
    private static final long serialVersionUID = 1L;

    /**
     * The failure.
     *
     * @param message what failed and why
     */
    public AuthenticationException(String message) {
        super(message, 0);
    }
}
