package org.jrdma.impl;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.jrdma.RdmaConfig;

/**
 * What a context is opened with, as one record that {@link NativeContext#open0} reads:
 * {@code ContextSettings} in native/src/context/context_settings.h, native byte order, its layout
 * checked at load ({@link Layouts}): first what every transport's context uses, then the verbs part
 * (the device's name travels beside it, as a string). Java owns every default.
 *
 * <p>A field is one constant of {@link Field} (in the native order) and one line in
 * {@link #record}; offsets, the record's size and the layout line follow from the list
 * ({@link RecordLayout}).
 */
final class ContextSettings {
    /** CQ entries when the configuration leaves it open; channels check their share against it. */
    static final int DEFAULT_CQ_ENTRIES = 4096;

    /** The record's fields in native order, with their sizes in bytes. */
    enum Field {
        // Every transport.
        RECEIVE_BUDGET(8), MAX_PENDING_CONNECTIONS(4), ADAPTIVE_SPIN_US(4), TRANSPORT(4),
        // Verbs: the device's port, the completion queue's first size, the shared receive queue's first buffers.
        PORT(4), CQ_ENTRIES(4), SHARED_RECEIVE_BUFFERS(4);

        final int size;

        Field(int size) {
            this.size = size;
        }

        int offset() {
            return LAYOUT.offset(this);
        }
    }

    static final RecordLayout LAYOUT = new RecordLayout("context settings", Field.values(),
            Arrays.stream(Field.values()).mapToInt(f -> f.size).toArray());

    private ContextSettings() {
    }

    /** The record for a context over {@code choice}'s transport and device. */
    static ByteBuffer record(RdmaConfig config, TransportChoice choice) {
        ByteBuffer r = ByteBuffer.allocateDirect(LAYOUT.bytes()).order(ByteOrder.nativeOrder());
        r.putLong(Field.RECEIVE_BUDGET.offset(), config.receiveBudget());
        r.putInt(Field.MAX_PENDING_CONNECTIONS.offset(), config.maxPendingConnections());
        r.putInt(Field.ADAPTIVE_SPIN_US.offset(), config.adaptiveSpinMicros());
        r.putInt(Field.TRANSPORT.offset(), choice.opened().ordinal());
        r.putInt(Field.PORT.offset(), choice.selection().port().number());
        r.putInt(Field.CQ_ENTRIES.offset(), cqEntries(config));
        r.putInt(Field.SHARED_RECEIVE_BUFFERS.offset(), config.sharedReceiveBuffers());
        return r;
    }

    static int cqEntries(RdmaConfig config) {
        return config.completionQueueSize() > 0 ? config.completionQueueSize() : DEFAULT_CQ_ENTRIES;
    }

    static String layout() {
        return LAYOUT.line();
    }
}
