package org.jrdma.impl;

/**
 * A context as JMX shows it ({@code org.jrdma:type=Context,device=...,id=...}): its device, the
 * sums of its channels' counters, open and closed ones ({@link org.jrdma.ChannelCounters}), failed
 * operations by status, the device's own counters and its completion queue's growth.
 */
public interface RdmaContextMXBean {
    String getDevice();

    int getOpenChannels();

    long getMessagesSent();

    long getBytesSent();

    long getMessagesReceived();

    long getBytesReceived();

    long getRendezvousSent();

    long getRendezvousReceived();

    long getCreditStalls();

    long getFailedOperations();

    /** Failed operations by status (REM_ACCESS_ERR, RETRY_EXC_ERR, WR_FLUSH_ERR, ...), for the context's lifetime. */
    java.util.Map<String, Long> getErrorsByStatus();

    /** The device port's own counters (sysfs hw_counters and counters), read now; empty where it has none. */
    java.util.Map<String, Long> getDeviceCounters();

    /** How often the completion queue grew to serve more queue pairs. */
    int getCompletionQueueResizes();

    int getCompletionQueueCapacity();
}
