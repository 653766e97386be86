package org.jrdma;

/**
 * A device async event delivered to {@link RdmaContext#addAsyncEventListener}.
 *
 * @param type     what happened
 * @param port     the port concerned, or 0
 * @param severity how it affects the context
 */
public record AsyncEvent(AsyncEventType type, int port, Severity severity) {
    /** How an event affects what depends on the device. */
    public enum Severity {
        /** Nothing fails (port active, GID change, ...). */
        INFO,
        /** A port or a queue pair is affected (port error, QP fatal). */
        ERROR,
        /** The device or its completion queue is lost: the context fails and everything on it. */
        FATAL
    }
}
