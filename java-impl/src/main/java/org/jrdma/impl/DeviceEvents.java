package org.jrdma.impl;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.jrdma.AsyncEvent;
import org.jrdma.DeviceRemovedException;

/**
 * What a context's device says about itself: async events logged and handed to the listeners the
 * application added (a listener that throws is logged, the others still hear the event), and the
 * failure a removed device gives. What the events do to the context stays with {@link JniContext}.
 */
final class DeviceEvents {
    private static final System.Logger LOG = System.getLogger("org.jrdma.device");

    private final List<Consumer<AsyncEvent>> listeners = new CopyOnWriteArrayList<>();

    void add(Consumer<AsyncEvent> listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    static void log(String device, AsyncEvent event) {
        Level level = event.severity() == AsyncEvent.Severity.INFO ? Level.INFO : Level.WARNING;
        LOG.log(level, "rdma async event on " + device + (event.port() > 0 ? " port " + event.port() : "") + ": "
                + event.type() + " (" + event.severity() + ")");
    }

    void notifyListeners(AsyncEvent event) {
        for (Consumer<AsyncEvent> listener : listeners) {
            try {
                listener.accept(event);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "async event listener threw", e);
            }
        }
    }

    /** The context's failure once its device is being removed (logged). */
    static DeviceRemovedException removed(String device) {
        DeviceRemovedException cause = new DeviceRemovedException("the device " + device
                + " was removed (its network interface is gone or its driver unloaded): the context refuses new work;"
                + " close it and open one on another device");
        LOG.log(Level.WARNING, cause.getMessage());
        return cause;
    }
}
