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
            mask |= a.verbsFlag;
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

    static boolean remote(int mask) {
        return (mask & ~LOCAL_WRITE) != 0;
    }
}
