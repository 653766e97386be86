package org.jrdma.impl;

/** Receives work completions on the event-loop thread, a batch at a time (channels implement it). */
interface CompletionListener {
    /**
     * @param wrId    the work request id given when posting
     * @param status  ibv_wc_status (0 = success)
     * @param opcode  ibv_wc_opcode
     * @param byteLen bytes received (receives) or 0
     * @param immData immediate data (host order as delivered by verbs)
     * @param qpNum   the queue pair the completion belongs to
     */
    void onCompletion(long wrId, int status, int opcode, int byteLen, int immData, int qpNum);
}
