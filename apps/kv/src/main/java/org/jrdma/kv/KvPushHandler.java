package org.jrdma.kv;

/**
 * What a {@link KvServer} does once it applied a push (ps-lite's request handle with its delayed
 * response): it sees who pushed which keys and answers the push — at once, or later, from any thread.
 * The worker's request is done only when the answer comes, so a server that answers a round's pushes
 * only once every worker pushed gives synchronous aggregation: a worker's pull after its push sees the
 * whole round. Pushes the server refuses (lengths, quota, merge) are answered at once and never reach
 * the handler.
 */
@FunctionalInterface
public interface KvPushHandler {
    /**
     * A push was applied (on the server's event-loop thread; must not block).
     *
     * @param push who pushed what, and its answer
     */
    void onPush(KvPush push);

    /**
     * Answers every push at once (the default).
     *
     * @return the handler
     */
    static KvPushHandler answerAtOnce() {
        return KvPush::answer;
    }
}
