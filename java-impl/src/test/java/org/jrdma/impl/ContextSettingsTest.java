package org.jrdma.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.List;
import org.jrdma.LinkLayer;
import org.jrdma.PortState;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaDevice;
import org.jrdma.RdmaPort;
import org.jrdma.Transport;
import org.junit.jupiter.api.Test;

/** The context settings record's shape and what Java writes into it (the library is not needed). */
class ContextSettingsTest {
    @Test
    void theLayoutPutsTheSixtyFourBitBudgetFirstAndFillsEightByteWords() {
        assertEquals("context settings size=32,receive_budget=0,max_pending_connections=8,adaptive_spin_us=12,"
                + "transport=16,port=20,cq_entries=24,shared_receive_buffers=28", ContextSettings.layout());
    }

    @Test
    void theRecordCarriesTheConfigurationTheTransportAndTheDefaults() {
        RdmaConfig config = RdmaConfig.builder().receiveBudget(5L << 30).maxPendingConnections(7).adaptiveSpinMicros(250)
                .sharedReceiveBuffers(64).build();
        RdmaDevice device = new RdmaDevice("rxe0", 1,
                List.of(new RdmaPort(2, PortState.ACTIVE, LinkLayer.ETHERNET, 1024, 4096, 0, List.of())));
        ByteBuffer r = ContextSettings.record(config,
                new TransportChoice(Transport.VERBS, new DeviceSelection(device, device.ports().get(0), 0, 1024)));
        assertEquals(5L << 30, r.getLong(ContextSettings.Field.RECEIVE_BUDGET.offset()), "a budget above 4 GiB fits");
        assertEquals(7, r.getInt(ContextSettings.Field.MAX_PENDING_CONNECTIONS.offset()));
        assertEquals(250, r.getInt(ContextSettings.Field.ADAPTIVE_SPIN_US.offset()));
        assertEquals(Transport.VERBS.ordinal(), r.getInt(ContextSettings.Field.TRANSPORT.offset()));
        assertEquals(2, r.getInt(ContextSettings.Field.PORT.offset()), "the selected port");
        assertEquals(ContextSettings.DEFAULT_CQ_ENTRIES, r.getInt(ContextSettings.Field.CQ_ENTRIES.offset()),
                "Java owns the default");
        assertEquals(64, r.getInt(ContextSettings.Field.SHARED_RECEIVE_BUFFERS.offset()));
    }
}
