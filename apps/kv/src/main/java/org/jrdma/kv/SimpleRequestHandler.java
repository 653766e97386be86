package org.jrdma.kv;

/**
 * Answers the requests a {@link SimpleApp} receives (ps-lite's request handle). Called on the context's
 * event-loop thread, one request at a time: answer at once, or keep the request and answer it later from
 * any thread. A handler that throws has the request failed with the exception's text.
 */
@FunctionalInterface
public interface SimpleRequestHandler {
    /**
     * A request arrived.
     *
     * @param request what was asked, by whom, and the means to answer it
     */
    void onRequest(SimpleRequest request);

    /**
     * A handler for an app that only asks: every request it receives fails, saying so.
     *
     * @return the handler
     */
    static SimpleRequestHandler refuseAll() {
        return request -> request.fail("this SimpleApp answers no requests");
    }
}
