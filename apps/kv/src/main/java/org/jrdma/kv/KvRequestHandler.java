package org.jrdma.kv;

/**
 * What a {@link KvServer} does with each request it accepted (ps-lite's request handle with its delayed
 * response): it sees who asked what and answers — at once, or later, from any thread. The worker's
 * request is done only when the answer comes. A server that answers a round's pushes (or PushPulls)
 * only once every worker pushed, and holds pulls until then, gives synchronous aggregation: each
 * worker's values come back as the whole round's. Requests the server refuses (lengths, unknown keys,
 * quota, merge, destinations too small) are answered at once and never reach the handler.
 */
@FunctionalInterface
public interface KvRequestHandler {
    /**
     * A request was accepted (on the server's event-loop thread; must not block). A handler that throws
     * has it answered at once.
     *
     * @param request who asked what, and its answer
     */
    void onRequest(KvServerRequest request);

    /**
     * Answers every request at once (the default).
     *
     * @return the handler
     */
    static KvRequestHandler answerAtOnce() {
        return KvServerRequest::answer;
    }
}
