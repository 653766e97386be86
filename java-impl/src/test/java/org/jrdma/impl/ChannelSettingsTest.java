package org.jrdma.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The settings record's shape and the values Java computes for it (the library is not needed). */
class ChannelSettingsTest {
    @Test
    void fieldsAreAlignedToTheirSizeAndTheRecordToItsLargestField() {
        assertEquals(32, ChannelSettings.Field.AGENT_QUOTA_BYTES.offset(), "the 64-bit field after eight ints");
        assertEquals(48, ChannelSettings.Field.GRACEFUL_CLOSE_MS.offset());
        assertEquals(52, ChannelSettings.Field.MAX_INLINE.offset(), "the verbs part follows the neutral one");
        assertEquals(96, ChannelSettings.RECORD_BYTES, "92 bytes of fields, padded to a multiple of 8 as in C++");
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
}
