package org.jrdma.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DeadlineChannelTest {
    @Test
    void deadlinesAreWholeMillisecondsRoundedUp() {
        assertEquals(1, DeadlineChannel.millis(Duration.ofNanos(1)));
        assertEquals(2, DeadlineChannel.millis(Duration.ofMillis(1).plusNanos(500_000)));
        assertEquals(500, DeadlineChannel.millis(Duration.ofMillis(500)));
        assertEquals(86_400_000, DeadlineChannel.millis(Duration.ofDays(1)));
    }

    @Test
    void deadlinesOutOfRangeAreRefusedWithTheRange() {
        for (Duration bad : new Duration[] {Duration.ZERO, Duration.ofMillis(-1), Duration.ofDays(1).plusNanos(1)}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DeadlineChannel.millis(bad));
            assertEquals("deadline " + bad + " is out of range: more than zero, at most PT24H", e.getMessage());
        }
        assertThrows(NullPointerException.class, () -> DeadlineChannel.millis(null));
    }
}
