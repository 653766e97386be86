package org.jrdma;

/**
 * Memory could not be registered. {@link #errno()} is ibv_reg_mr's errno; for ENOMEM and EPERM the
 * message names the locked-memory limit ({@code ulimit -l}) and how to raise it.
 */
public class RegistrationException extends RdmaException {
    private static final long serialVersionUID = 1L;

    public RegistrationException(String message, int errno) {
        super(message, errno);
    }
}
