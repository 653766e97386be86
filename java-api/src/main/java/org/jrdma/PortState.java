package org.jrdma;

/** Logical port state, as in {@code enum ibv_port_state}. */
public enum PortState {
    NOP, DOWN, INIT, ARMED, ACTIVE, ACTIVE_DEFER, UNKNOWN;

    /** Maps the verbs value; values this enum does not know become {@link #UNKNOWN}. */
    public static PortState fromVerbs(int value) {
        PortState[] all = values();
        return value >= 0 && value < UNKNOWN.ordinal() ? all[value] : UNKNOWN;
    }
}
