package org.jrdma;

/** Device async events, as in {@code enum ibv_event_type} (same order, same values). */
public enum AsyncEventType {
    /** A completion queue overran or failed (IBV_EVENT_CQ_ERR). */
    CQ_ERR,
    /** A queue pair hit an error it reports no completion for (IBV_EVENT_QP_FATAL). */
    QP_FATAL,
    /** A queue pair received an invalid request (IBV_EVENT_QP_REQ_ERR). */
    QP_REQ_ERR,
    /** A queue pair's peer violated its access rights (IBV_EVENT_QP_ACCESS_ERR). */
    QP_ACCESS_ERR,
    /** Communication is established on a queue pair (IBV_EVENT_COMM_EST). */
    COMM_EST,
    /** A send queue drained (IBV_EVENT_SQ_DRAINED). */
    SQ_DRAINED,
    /** A queue pair migrated to its alternate path (IBV_EVENT_PATH_MIG). */
    PATH_MIG,
    /** Path migration failed (IBV_EVENT_PATH_MIG_ERR). */
    PATH_MIG_ERR,
    /** The device failed; the context is unusable (IBV_EVENT_DEVICE_FATAL). */
    DEVICE_FATAL,
    /** A port became active (IBV_EVENT_PORT_ACTIVE). */
    PORT_ACTIVE,
    /** A port went down (IBV_EVENT_PORT_ERR). */
    PORT_ERR,
    /** A port's LID changed (IBV_EVENT_LID_CHANGE). */
    LID_CHANGE,
    /** A port's P_Key table changed (IBV_EVENT_PKEY_CHANGE). */
    PKEY_CHANGE,
    /** The subnet manager changed (IBV_EVENT_SM_CHANGE). */
    SM_CHANGE,
    /** A shared receive queue failed (IBV_EVENT_SRQ_ERR). */
    SRQ_ERR,
    /** A shared receive queue fell below its limit (IBV_EVENT_SRQ_LIMIT_REACHED). */
    SRQ_LIMIT_REACHED,
    /** The last work request of a queue pair on a shared receive queue completed (IBV_EVENT_QP_LAST_WQE_REACHED). */
    QP_LAST_WQE_REACHED,
    /** The subnet manager asks clients to register again (IBV_EVENT_CLIENT_REREGISTER). */
    CLIENT_REREGISTER,
    /** A port's GID table changed (IBV_EVENT_GID_CHANGE; on RoCE when addresses change). */
    GID_CHANGE,
    /** A work queue failed (IBV_EVENT_WQ_FATAL). */
    WQ_FATAL,
    /** A value this version does not know. */
    UNKNOWN;

    /**
     * The type of a verbs event value.
     *
     * @param value an {@code ibv_event_type} value
     * @return its type, or {@link #UNKNOWN}
     */
    public static AsyncEventType fromVerbs(int value) {
        AsyncEventType[] all = values();
        return value >= 0 && value < UNKNOWN.ordinal() ? all[value] : UNKNOWN;
    }
}
