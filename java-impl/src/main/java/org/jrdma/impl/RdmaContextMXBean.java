package org.jrdma.impl;

import java.util.Map;

/**
 * A context as JMX shows it ({@code org.jrdma:type=Context,device=...,id=...}): its device, the
 * sums of its channels' counters, open and closed ones ({@link org.jrdma.ChannelCounters}), failed
 * operations by status, the device's own counters, its completion queue's growth and its buffer pool's size.
 */
public interface RdmaContextMXBean {
    /** {@return the device's name (tcp or shm for a context without RDMA)} */
    String getDevice();

    /** {@return the channels open now} */
    int getOpenChannels();

    /** {@return messages sent by all channels, open and closed} */
    long getMessagesSent();

    /** {@return payload bytes sent} */
    long getBytesSent();

    /** {@return messages received} */
    long getMessagesReceived();

    /** {@return payload bytes received} */
    long getBytesReceived();

    /** {@return messages sent by rendezvous} */
    long getRendezvousSent();

    /** {@return messages received by rendezvous} */
    long getRendezvousReceived();

    /** {@return operations that waited in the queue for credits or queue room} */
    long getCreditStalls();

    /** {@return operations reported failed} */
    long getFailedOperations();

    /** {@return failed operations by status (REM_ACCESS_ERR, RETRY_EXC_ERR, WR_FLUSH_ERR, ...), for the context's lifetime} */
    Map<String, Long> getErrorsByStatus();

    /** {@return the device port's own counters (sysfs hw_counters and counters), read now; empty where it has none} */
    Map<String, Long> getDeviceCounters();

    /** {@return how often a completion queue grew, or another was added, to serve more queue pairs} */
    int getCompletionQueueResizes();

    /** {@return the entries of the context's completion queues now (0 without RDMA)} */
    int getCompletionQueueCapacity();

    /** {@return bytes of registered memory the context's buffer pool holds now, blocks in use and free ones} */
    long getPoolBytes();
}
