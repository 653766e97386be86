package org.jrdma.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@code scale --nio}'s reference: plain NIO connections stream whole messages and the figures come back. */
class NioStreamsTest {
    @Test
    void manyConnectionsStreamAndTheThroughputAndCpuAreMeasured() throws Exception {
        double[] figures = NioStreams.stream(16, 8192, 1);
        assertTrue(figures[0] > 0, "Gbit/s received: " + figures[0]);
        assertTrue(figures[1] > 0, "CPU us per message: " + figures[1]);
    }
}
