package org.jrdma.rxe.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.management.ManagementFactory;
import java.util.HashSet;
import java.util.Set;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/** A context's JMX bean ({@code org.jrdma:type=Context,...}), found as the one its opening registered. */
final class ContextBean {
    private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();

    private final ObjectName name;

    private ContextBean(ObjectName name) {
        this.name = name;
    }

    /** The context beans registered now: taken before a test opens its context, for {@link #openedSince}. */
    static Set<ObjectName> registered() throws JMException {
        return JMX.queryNames(new ObjectName("org.jrdma:type=Context,*"), null);
    }

    /** The one context bean registered since {@code before} (the test opened one context). */
    static ContextBean openedSince(Set<ObjectName> before) throws JMException {
        Set<ObjectName> names = new HashSet<>(registered());
        names.removeAll(before);
        assertEquals(1, names.size(), names.toString());
        return new ContextBean(names.iterator().next());
    }

    /** The pool's registered bytes (JMX PoolBytes). */
    long poolBytes() throws JMException {
        return (Long) JMX.getAttribute(name, "PoolBytes");
    }
}
