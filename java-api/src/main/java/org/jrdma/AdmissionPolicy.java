package org.jrdma;

/**
 * A server's decision on each incoming connection, before anything is created for it (no queue
 * pair, no registered memory): {@link RdmaContext#listen(java.net.InetSocketAddress, ChannelHandler, AdmissionPolicy)}.
 * Called on the context's event-loop thread; must not block. A policy that throws refuses the
 * connection (code -1). A refused client fails with {@link AdmissionRefusedException} carrying the
 * code and the reason given here.
 */
@FunctionalInterface
public interface AdmissionPolicy {
    /**
     * Decides on one connection request.
     *
     * @param request the peer's address and connect data
     * @return {@link Admission#accept()} or {@link Admission#reject}
     */
    Admission decide(ConnectionRequest request);

    /** What a policy answers. */
    final class Admission {
        private static final Admission ACCEPT = new Admission(true, 0, "");

        private final boolean accepted;
        private final int code;
        private final String reason;

        private Admission(boolean accepted, int code, String reason) {
            this.accepted = accepted;
            this.code = code;
            this.reason = reason;
        }

        /**
         * Accepts the connection.
         *
         * @return the answer
         */
        public static Admission accept() {
            return ACCEPT;
        }

        /**
         * Refuses with an application code and a reason the client receives (UTF-8, cut at 120 bytes;
         * it travels in the clear: say nothing secret).
         *
         * @param code   the application's code
         * @param reason the text the client receives (null: none)
         * @return the answer
         */
        public static Admission reject(int code, String reason) {
            return new Admission(false, code, reason == null ? "" : reason);
        }

        /**
         * Whether the connection is accepted.
         *
         * @return true to accept
         */
        public boolean accepted() {
            return accepted;
        }

        /**
         * The refusal's code.
         *
         * @return the application's code (0 when accepted)
         */
        public int code() {
            return code;
        }

        /**
         * The refusal's reason.
         *
         * @return the text the client receives (empty when accepted)
         */
        public String reason() {
            return reason;
        }
    }
}
