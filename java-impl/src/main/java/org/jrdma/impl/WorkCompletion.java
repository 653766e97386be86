package org.jrdma.impl;

import org.jrdma.RdmaOperationException;

/** Names of ibv_wc_status and ibv_wc_opcode values, for messages. */
final class WorkCompletion {
    static final int SUCCESS = 0;
    static final int WR_FLUSH_ERR = RdmaOperationException.WR_FLUSH_ERR;

    private static final String[] STATUS = {"SUCCESS", "LOC_LEN_ERR", "LOC_QP_OP_ERR", "LOC_EEC_OP_ERR", "LOC_PROT_ERR",
        "WR_FLUSH_ERR", "MW_BIND_ERR", "BAD_RESP_ERR", "LOC_ACCESS_ERR", "REM_INV_REQ_ERR", "REM_ACCESS_ERR", "REM_OP_ERR",
        "RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR", "LOC_RDD_VIOL_ERR", "REM_INV_RD_REQ_ERR", "REM_ABORT_ERR", "INV_EECN_ERR",
        "INV_EEC_STATE_ERR", "FATAL_ERR", "RESP_TIMEOUT_ERR", "GENERAL_ERR", "TM_ERR", "TM_RNDV_INCOMPLETE"};

    private WorkCompletion() {
    }

    static String status(int status) {
        return status >= 0 && status < STATUS.length ? STATUS[status] : "status " + status;
    }

    /** The name of an operation's failure status: an ibv_wc_status, or how a rendezvous send ended. */
    static String failure(int status) {
        switch (status) {
            case EventRecords.PEER_BUFFER_TOO_SMALL:
                return "PEER_BUFFER_TOO_SMALL";
            case EventRecords.PEER_COULD_NOT_RECEIVE:
                return "PEER_COULD_NOT_RECEIVE";
            case EventRecords.EXPOSE_FAILED:
                return "EXPOSE_FAILED";
            default:
                return status(status);
        }
    }
}
