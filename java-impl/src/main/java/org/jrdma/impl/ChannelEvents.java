package org.jrdma.impl;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.EventType;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;
import org.jrdma.ChannelCounters;

/**
 * JFR events of channels, so that {@code jcmd <pid> JFR.start} shows what the library did: a channel
 * opened, a channel closed with its cause and its counters, an operation that failed, and an
 * operation slower than the event's threshold (JFR's own setting: 20 ms unless the recording says
 * otherwise, e.g. {@code +org.jrdma.SlowOperation#threshold=1 ms}). Committed only when a recording
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
    @Description("Why the channel closed (empty: the application closed it; else the cause: the peer, a failure,"
            + " the context's close) and what it did; recorded only for channels that opened")
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

    @Name("org.jrdma.SlowOperation")
    @Label("RDMA Operation Slower Than The Threshold")
    @Category("jrdma")
    @Description("From submission to completion; recorded when longer than the threshold")
    @Threshold("20 ms")
    @StackTrace(false)
    static final class SlowOperation extends Event {
        @Label("Device")
        String device;
        @Label("Peer")
        String peer;
        @Label("Operation")
        String operation;
        @Label("Bytes")
        long bytes;
        @Label("Outcome")
        String outcome;
    }

    @Name("org.jrdma.OperationFailed")
    @Label("RDMA Operation Failed")
    @Category("jrdma")
    @StackTrace(false)
    static final class OperationFailed extends Event {
        @Label("Device")
        String device;
        @Label("Peer")
        String peer;
        @Label("Operation")
        String operation;
        @Label("Status")
        String status;
    }

    private static final EventType SLOW_OPERATION = EventType.getEventType(SlowOperation.class);

    /**
     * The timing of an operation being submitted, or null when no recording enables slow-operation
     * events (one check of JFR's flag: the hot path allocates nothing then).
     */
    static SlowOperation operationStarted(String device, Object peer, String operation, long bytes) {
        if (!SLOW_OPERATION.isEnabled()) {
            return null;
        }
        SlowOperation event = new SlowOperation();
        event.device = device;
        event.peer = String.valueOf(peer);
        event.operation = operation;
        event.bytes = bytes;
        event.begin();
        return event;
    }

    /** The operation of {@code event} completed: recorded when it took longer than the threshold. */
    static void operationEnded(SlowOperation event, Throwable failure) {
        event.end();
        if (event.shouldCommit()) {
            event.outcome = failure == null ? "completed" : failure.toString();
            event.commit();
        }
    }

    static void operationFailed(String device, Object peer, String operation, String status) {
        OperationFailed event = new OperationFailed();
        if (event.isEnabled()) {
            event.device = device;
            event.peer = String.valueOf(peer);
            event.operation = operation;
            event.status = status;
            event.commit();
        }
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
