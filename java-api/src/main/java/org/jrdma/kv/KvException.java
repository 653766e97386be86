package org.jrdma.kv;

import org.jrdma.RdmaException;

/** A push or pull failed: a server refused it (unknown key, wrong length, merge error) or went away. */
public class KvException extends RdmaException {
    private static final long serialVersionUID = 1L;

    public KvException(String message) {
        super(message, 0);
    }

    public KvException(String message, Throwable cause) {
        super(message, cause);
    }
}
