package org.jrdma.impl;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class LayoutsTest {
    @BeforeAll
    static void loadLibrary() {
        NativeLoader.ensureLoaded();
    }

    @Test
    void theLoadedLibraryHasTheRecordLayoutsJavaReads() {
        assertEquals(Layouts.expected(), NativeLibrary.layout0());
        assertDoesNotThrow(() -> Layouts.check(NativeLibrary.layout0()));
    }

    @Test
    void aLibraryWithAnotherLayoutIsRefusedWithBothLayoutsInTheMessage() {
        String other = NativeLibrary.layout0().replace("seq=40", "seq=44");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Layouts.check(other));
        assertTrue(e.getMessage().contains("seq=44") && e.getMessage().contains("seq=40"), e.getMessage());
        assertTrue(e.getMessage().contains("native record layout mismatch"), e.getMessage());
    }

    @Test
    void channelSettingsWithTwoFieldsSwappedAreRefused() {
        String ours = NativeLibrary.layout0();
        int timeout = ChannelSettings.Field.TIMEOUT.offset();
        int retryCount = ChannelSettings.Field.RETRY_COUNT.offset();
        String inOrder = ",timeout=" + timeout + ",retry_count=" + retryCount + ",";
        assertTrue(ours.contains("settings size=" + ChannelSettings.RECORD_BYTES + ",") && ours.contains(inOrder), ours);
        String swapped = ours.replace(inOrder, ",retry_count=" + timeout + ",timeout=" + retryCount + ",");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Layouts.check(swapped));
        assertTrue(e.getMessage().contains("retry_count=" + timeout), e.getMessage());
    }

    @Test
    void codesRenumberedOnOneSideAreRefused() {
        String ours = NativeLibrary.layout0();
        assertTrue(ours.contains(", ChannelFailure kAddressError=1 ") && ours.contains(" kAuthFailed=11,"), ours);
        String renumbered = ours.replace(" kAuthFailed=11,", " kAuthFailed=12,");
        assertThrows(IllegalStateException.class, () -> Layouts.check(renumbered));
    }

    @Test
    void everyRefusalReasonAndDecodeStatusTheLibraryHasHasAText() {
        // The line checked the last codes; the texts are indexed by them.
        assertTrue(!ConnectionFailures.reason(NativeCodes.REJECT_LAST).startsWith("reason "));
        assertTrue(ConnectionFailures.reason(NativeCodes.REJECT_LAST + 1).startsWith("reason "));
        assertTrue(!ConnectionFailures.decodeStatus(NativeCodes.DECODE_LAST).startsWith("decode status "));
        assertTrue(ConnectionFailures.decodeStatus(NativeCodes.DECODE_LAST + 1).startsWith("decode status "));
        assertTrue(!ConnectionFailures.decodeStatus(NativeCodes.VIOLATION_LAST).startsWith("decode status "));
        assertTrue(ConnectionFailures.decodeStatus(NativeCodes.VIOLATION_LAST + 1).startsWith("decode status "));
    }
}
