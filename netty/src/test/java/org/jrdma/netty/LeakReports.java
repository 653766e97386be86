package org.jrdma.netty;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.ArrayList;
import java.util.List;

/** Keeps the leak reports of Netty's ResourceLeakDetector (errors it logs), for {@link NoLeaks} (logback-test.xml attaches it). */
public final class LeakReports extends AppenderBase<ILoggingEvent> {
    private static final List<String> REPORTS = new ArrayList<>();

    @Override
    protected void append(ILoggingEvent event) {
        if (event.getLevel().isGreaterOrEqual(Level.ERROR) && event.getLoggerName().startsWith("io.netty.util.ResourceLeakDetector")) {
            synchronized (REPORTS) {
                REPORTS.add(event.getFormattedMessage());
            }
        }
    }

    /** {@return the reports logged so far, and forgets them} */
    static List<String> take() {
        synchronized (REPORTS) {
            List<String> taken = new ArrayList<>(REPORTS);
            REPORTS.clear();
            return taken;
        }
    }
}
