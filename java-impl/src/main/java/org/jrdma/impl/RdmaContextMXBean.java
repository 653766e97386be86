package org.jrdma.impl;

/**
 * A context as JMX shows it ({@code org.jrdma:type=Context,device=...,id=...}): its device and the
 * sums of its channels' counters, open and closed ones ({@link org.jrdma.ChannelCounters}).
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
}
