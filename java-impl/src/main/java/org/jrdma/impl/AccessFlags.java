package org.jrdma.impl;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import org.jrdma.Access;

/** Least-privilege verbs access masks: LOCAL_WRITE always, remote bits only when asked for. */
final class AccessFlags {
    static final int LOCAL_WRITE = 1;

    private AccessFlags() {
    }

    static int mask(Access... access) {
        int mask = LOCAL_WRITE;
        for (Access a : access) {
            mask |= known(a).verbsFlag;
        }
        return mask;
    }

    static Set<Access> set(int mask) {
        EnumSet<Access> set = EnumSet.noneOf(Access.class);
        for (Access a : Access.values()) {
            if ((mask & a.verbsFlag) != 0) {
                set.add(a);
            }
        }
        return Collections.unmodifiableSet(set);
    }

    /** The rights as the wire names them (wire::RemoteAccess: read 1, write 2, atomic 4). */
    static int wire(Access... access) {
        int bits = 0;
        for (Access a : access) {
            switch (known(a)) {
                case REMOTE_READ -> bits |= 1;
                case REMOTE_WRITE -> bits |= 2;
                case REMOTE_ATOMIC -> bits |= 4;
                default -> throw new IllegalArgumentException(a + " is not a right a peer can be granted");
            }
        }
        return bits;
    }

    /** Least privilege: a right that is not named (null) grants nothing, it is refused. */
    private static Access known(Access access) {
        if (access == null) {
            throw new NullPointerException("a right is null: name REMOTE_READ, REMOTE_WRITE or REMOTE_ATOMIC");
        }
        return access;
    }

    static Access[] fromWire(int bits) {
        EnumSet<Access> set = EnumSet.noneOf(Access.class);
        if ((bits & 1) != 0) {
            set.add(Access.REMOTE_READ);
        }
        if ((bits & 2) != 0) {
            set.add(Access.REMOTE_WRITE);
        }
        if ((bits & 4) != 0) {
            set.add(Access.REMOTE_ATOMIC);
        }
        return set.toArray(new Access[0]);
    }

    static boolean remote(int mask) {
        return (mask & ~LOCAL_WRITE) != 0;
    }
}
