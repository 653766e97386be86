package org.jrdma;

/**
 * Memory could not be registered. {@link #errno()} is ibv_reg_mr's errno; for ENOMEM and EPERM the
 * message names the locked-memory limit ({@code ulimit -l}) and how to raise it.
 */
public class RegistrationException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /**
     * The failure.
     *
     * @param message what failed and why
     * @param errno   the errno of the failed call, or 0
     */
    public RegistrationException(String message, int errno) {
        super(message, errno);
    }
}
