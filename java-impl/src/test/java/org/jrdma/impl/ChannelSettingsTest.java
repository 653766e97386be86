package org.jrdma.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.List;
import org.jrdma.AgentLimits;
import org.jrdma.LinkLayer;
import org.jrdma.PortState;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaDevice;
import org.jrdma.RdmaPort;
import org.junit.jupiter.api.Test;

/** The settings record's shape and the values Java computes for it (the library is not needed). */
class ChannelSettingsTest {
    @Test
    void fieldsAreAlignedToTheirSizeAndTheRecordToItsLargestField() {
        assertEquals(32, ChannelSettings.Field.AGENT_QUOTA_BYTES.offset(), "the 64-bit field after eight ints");
        assertEquals(48, ChannelSettings.Field.GRACEFUL_CLOSE_MS.offset());
        assertEquals(52, ChannelSettings.Field.READ_CHUNK.offset());
        assertEquals(56, ChannelSettings.Field.MAX_INLINE.offset(), "the verbs part follows the neutral one");
        assertEquals(96, ChannelSettings.RECORD_BYTES, "96 bytes of fields, a multiple of 8 as in C++");
        assertEquals("settings size=96,depth=0,eager=4,max_message=8",
                ChannelSettings.layout().substring(0, "settings size=96,depth=0,eager=4,max_message=8".length()));
    }

    @Test
    void aGracefulCloseWaitsTwiceTheQueuePairsGiveUpTimeBetweenTwoSecondsAndAnHour() {
        assertEquals(2000, ChannelSettings.gracefulCloseMillis(14, 7), "2 x 67 ms x 8 tries is below the floor");
        assertEquals(68719, ChannelSettings.gracefulCloseMillis(20, 7), "2 x 4,295 ms x 8 tries");
        assertEquals(3_600_000, ChannelSettings.gracefulCloseMillis(31, 7), "capped at an hour");
        assertEquals(3_600_000, ChannelSettings.gracefulCloseMillis(40, 7), "exponents above 31 count as 31");
    }

    @Test
    void theRecordCarriesTheConfigurationAndTheDeviceSelection() {
        RdmaConfig config = RdmaConfig.builder().queueDepth(32).eagerSize(8192).maxMessageSize(1 << 20)
                .rendezvousTransfers(3).rendezvousChunkSize(65536).keepaliveMillis(5000).agentLimits(new AgentLimits(2000, 5L << 30, 9))
                .gidIndex(1).serviceLevel(2).build();
        RdmaDevice device = new RdmaDevice("rxe0", 1,
                List.of(new RdmaPort(2, PortState.ACTIVE, LinkLayer.ETHERNET, 1024, 4096, 0, List.of())));
        ByteBuffer r = ChannelSettings.record(config, new DeviceSelection(device, device.ports().get(0), 1, 1024));
        assertEquals(32, r.getInt(ChannelSettings.Field.DEPTH.offset()));
        assertEquals(8192, r.getInt(ChannelSettings.Field.EAGER.offset()));
        assertEquals(1 << 20, r.getInt(ChannelSettings.Field.MAX_MESSAGE.offset()));
        assertEquals(3, r.getInt(ChannelSettings.Field.RENDEZVOUS.offset()));
        assertEquals(65536, r.getInt(ChannelSettings.Field.READ_CHUNK.offset()));
        assertEquals(5000, r.getInt(ChannelSettings.Field.KEEPALIVE_MS.offset()));
        assertEquals(5L << 30, r.getLong(ChannelSettings.Field.AGENT_QUOTA_BYTES.offset()), "a quota above 4 GiB fits");
        assertEquals(9, r.getInt(ChannelSettings.Field.AGENT_QUOTA_COUNT.offset()));
        assertEquals(2, r.getInt(ChannelSettings.Field.PORT.offset()), "the selected port");
        assertEquals(1, r.getInt(ChannelSettings.Field.GID_INDEX.offset()));
        assertEquals(1024, r.getInt(ChannelSettings.Field.MTU.offset()));
        assertEquals(2, r.getInt(ChannelSettings.Field.SERVICE_LEVEL.offset()));
    }
}
