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
}
