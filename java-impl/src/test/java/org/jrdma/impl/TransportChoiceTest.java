package org.jrdma.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.jrdma.ConfigurationException;
import org.jrdma.LinkLayer;
import org.jrdma.PortState;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaConfigBuilder;
import org.jrdma.RdmaDevice;
import org.jrdma.RdmaPort;
import org.jrdma.Transport;
import org.junit.jupiter.api.Test;

/** Which transport a context opens with: auto's rules, and the explicit choices. */
class TransportChoiceTest {
    private static final RdmaDevice ACTIVE_IB = new RdmaDevice("mlx5_0", 1,
            List.of(new RdmaPort(1, PortState.ACTIVE, LinkLayer.INFINIBAND, 4096, 4096, 3, List.of())));
    private static final RdmaDevice DOWN_IB = new RdmaDevice("mlx5_1", 2,
            List.of(new RdmaPort(1, PortState.DOWN, LinkLayer.INFINIBAND, 4096, 4096, 0, List.of())));
    private static final Supplier<List<RdmaDevice>> NO_RDMA_CORE = () -> {
        throw new ConfigurationException("cannot load libibverbs.so.1");
    };

    private static TransportChoice choose(RdmaConfigBuilder config, Supplier<List<RdmaDevice>> devices) {
        return TransportChoice.choose(config.build(), devices);
    }

    @Test
    void autoTakesVerbsWithAnActiveDeviceElseTcpWithSharedMemory() {
        TransportChoice verbs = choose(RdmaConfig.builder(), () -> List.of(DOWN_IB, ACTIVE_IB));
        assertEquals(Transport.VERBS, verbs.transport());
        assertEquals("mlx5_0", verbs.selection().device().name());
        for (Supplier<List<RdmaDevice>> none : List.<Supplier<List<RdmaDevice>>>of(List::of, () -> List.of(DOWN_IB), NO_RDMA_CORE)) {
            TransportChoice sockets = choose(RdmaConfig.builder(), none);
            assertEquals(Transport.TCP, sockets.transport(), "reported");
            assertEquals(Transport.AUTO, sockets.opened(), "opened: TCP sharing memory with same-host peers");
            assertEquals("tcp", sockets.selection().device().name());
        }
    }

    @Test
    void aNamedDeviceKeepsAutoOnVerbsAndItsErrors() {
        // A named device whose port is down: auto does not fall back to TCP, verbs says why.
        ConfigurationException down = assertThrows(ConfigurationException.class,
                () -> choose(RdmaConfig.builder().device("mlx5_1"), () -> List.of(DOWN_IB, ACTIVE_IB)));
        assertEquals(true, down.getMessage().contains("no active port"), down.getMessage());
        ConfigurationException missing = assertThrows(ConfigurationException.class,
                () -> choose(RdmaConfig.builder().device("mlx5_0"), NO_RDMA_CORE));
        assertEquals("cannot load libibverbs.so.1", missing.getMessage());
    }

    @Test
    void explicitChoicesAreKeptAndVerbsFailsWithTheReason() {
        assertEquals(Transport.TCP, choose(RdmaConfig.builder().transport(Transport.TCP), () -> List.of(ACTIVE_IB)).opened());
        TransportChoice shm = choose(RdmaConfig.builder().transport(Transport.SHM), () -> List.of(ACTIVE_IB));
        assertSame(Transport.SHM, shm.transport());
        assertEquals("shm", shm.selection().device().name());
        assertThrows(ConfigurationException.class, () -> choose(RdmaConfig.builder().transport(Transport.VERBS), NO_RDMA_CORE));
        assertThrows(ConfigurationException.class, () -> choose(RdmaConfig.builder().transport(Transport.VERBS), List::of));
    }

    @Test
    void theFallBackFromRdmaIsSaidAtInfoOncePerJvmThenAtDebug() {
        Logger log = Logger.getLogger("org.jrdma.transport");
        List<LogRecord> records = new CopyOnWriteArrayList<>();
        Handler collect = new Handler() {
            @Override
            public void publish(LogRecord record) {
                records.add(record);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Level before = log.getLevel();
        log.setLevel(Level.ALL);
        log.addHandler(collect);
        try {
            for (int i = 0; i < 5; i++) {
                choose(RdmaConfig.builder(), NO_RDMA_CORE);
            }
        } finally {
            log.removeHandler(collect);
            log.setLevel(before);
        }
        assertEquals(5, records.size(), "every fall-back is logged");
        long info = records.stream().filter(r -> r.getLevel() == Level.INFO).count();
        assertEquals(true, info <= 1, "INFO once per JVM (an earlier test may have had it): " + info);
        assertEquals(Level.FINE, records.get(4).getLevel(), "later ones at DEBUG");
        assertEquals(true, records.get(4).getMessage().contains("RDMA is not usable here"), records.get(4).getMessage());
    }
}
