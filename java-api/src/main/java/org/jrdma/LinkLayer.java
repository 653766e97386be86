package org.jrdma;

/** A port's link layer, as in {@code IBV_LINK_LAYER_*}. */
public enum LinkLayer {
    UNSPECIFIED, INFINIBAND, ETHERNET, UNKNOWN;

    public static LinkLayer fromVerbs(int value) {
        switch (value) {
            case 0: return UNSPECIFIED;
            case 1: return INFINIBAND;
            case 2: return ETHERNET;
            default: return UNKNOWN;
        }
    }
}
