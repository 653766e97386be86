package org.jrdma.netty;

import io.netty.channel.EventLoopGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The event loop groups a test made, shut down after it (a test class keeps one and calls {@link #shutDown} after each test). */
final class LoopGroups {
    private final List<EventLoopGroup> groups = new ArrayList<>();

    /** {@return {@code group}, shut down with the others} */
    EventLoopGroup add(EventLoopGroup group) {
        groups.add(group);
        return group;
    }

    /** Shuts every group down and waits until it has (its channels closed, its contexts closed). */
    void shutDown() {
        for (EventLoopGroup group : groups) {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
        }
        groups.clear();
    }
}
