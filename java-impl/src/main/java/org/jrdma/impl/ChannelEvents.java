package org.jrdma.impl;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import org.jrdma.ChannelCounters;

/**
 * JFR events of channels, so that {@code jcmd <pid> JFR.start} shows what the library did: a channel
 * opened, and a channel closed with its cause and its counters. Committed only when a recording
 * enables them (JFR's own check; nothing is allocated otherwise).
 */
final class ChannelEvents {
    private ChannelEvents() {
    }

    @Name("org.jrdma.ChannelOpened")
    @Label("RDMA Channel Opened")
    @Category("jrdma")
    static final class Opened extends Event {
        @Label("Device")
        String device;
        @Label("Peer")
        String peer;
    }

    @Name("org.jrdma.ChannelClosed")
    @Label("RDMA Channel Closed")
    @Category("jrdma")
    @Description("Why the channel closed (empty: closed locally) and what it did")
    static final class Closed extends Event {
        @Label("Device")
        String device;
        @Label("Peer")
        String peer;
        @Label("Cause")
        String cause;
        @Label("Messages Sent")
        long messagesSent;
        @Label("Bytes Sent")
        long bytesSent;
        @Label("Messages Received")
        long messagesReceived;
        @Label("Bytes Received")
        long bytesReceived;
        @Label("Failed Operations")
        long failedOperations;
    }

    static void opened(String device, Object peer) {
        Opened event = new Opened();
        if (event.isEnabled()) {
            event.device = device;
            event.peer = String.valueOf(peer);
            event.commit();
        }
    }

    static void closed(String device, Object peer, Throwable cause, ChannelCounters counters) {
        Closed event = new Closed();
        if (event.isEnabled()) {
            event.device = device;
            event.peer = String.valueOf(peer);
            event.cause = cause == null ? "" : cause.toString();
            if (counters != null) {
                event.messagesSent = counters.messagesSent();
                event.bytesSent = counters.bytesSent();
                event.messagesReceived = counters.messagesReceived();
                event.bytesReceived = counters.bytesReceived();
                event.failedOperations = counters.failedOperations();
            }
            event.commit();
        }
    }
}
