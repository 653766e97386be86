package org.jrdma.netty;

import io.netty.channel.IoEvent;
import io.netty.channel.IoHandle;
import io.netty.channel.IoRegistration;

/**
 * What a channel of this transport registers with its {@link RdmaIoHandler}. jrdma reports a channel's
 * events through its handler callbacks, not through {@link IoEvent}s: the registration only ties the
 * channel to the loop's context and lets the loop close it when it shuts down.
 */
interface RdmaIoHandle extends IoHandle {
    @Override
    default void handle(IoRegistration registration, IoEvent ioEvent) {
        // never called: RdmaIoHandler submits no IoEvents
    }

    /** {@return a line on the channel's state, for a report on a program that stopped making progress (its loop only)} */
    String describe();

    /** Closes the channel now, as the loop it is registered with shuts down. */
    void closeNow();

    /**
     * Closes the channel without its pipeline's events, as Netty does for a channel whose registration
     * failed: the loop it is registered with has ended (Netty need not have let it close its channels).
     */
    void closeForcibly();

    @Override
    default void close() {
        closeNow();
    }
}
