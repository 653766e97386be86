package org.jrdma;

/** A port's link layer, as in {@code IBV_LINK_LAYER_*}. */
public enum LinkLayer {
    /** The device did not say (older drivers; InfiniBand). */
    UNSPECIFIED,
    /** InfiniBand. */
    INFINIBAND,
    /** Ethernet: RoCE. */
    ETHERNET,
    /** A value this version does not know. */
    UNKNOWN;

    /**
     * Maps the verbs value.
     *
     * @param value an {@code IBV_LINK_LAYER_*} value
     * @return its link layer, or {@link #UNKNOWN}
     */
    public static LinkLayer fromVerbs(int value) {
        switch (value) {
            case 0: return UNSPECIFIED;
            case 1: return INFINIBAND;
            case 2: return ETHERNET;
            default: return UNKNOWN;
        }
    }
}
