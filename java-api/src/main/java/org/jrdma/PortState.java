package org.jrdma;

/** Logical port state, as in {@code enum ibv_port_state}. */
public enum PortState {
    /** No state change (IBV_PORT_NOP). */
    NOP,
    /** The link is down. */
    DOWN,
    /** The link is up, the port not yet configured by the subnet manager. */
    INIT,
    /** Configured, not yet active (InfiniBand). */
    ARMED,
    /** Usable. */
    ACTIVE,
    /** Active, but deferring traffic after an error. */
    ACTIVE_DEFER,
    /** A value this version does not know. */
    UNKNOWN;

    /**
     * Maps the verbs value.
     *
     * @param value an {@code ibv_port_state} value
     * @return its state; values this enum does not know become {@link #UNKNOWN}
     */
    public static PortState fromVerbs(int value) {
        PortState[] all = values();
        return value >= 0 && value < UNKNOWN.ordinal() ? all[value] : UNKNOWN;
    }
}
