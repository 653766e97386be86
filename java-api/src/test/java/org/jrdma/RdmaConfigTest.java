package org.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class RdmaConfigTest {
    @Test
    void defaultsPickEverythingAndRetryTransportErrorsButNotReceiversNotReadyALimitedTime() {
        RdmaConfig config = RdmaConfig.fromEnvironment(Map.of());
        assertNull(config.device());
        assertEquals(0, config.port());
        assertEquals(-1, config.gidIndex());
        assertEquals(0, config.mtu());
        assertEquals(6, config.retryCount());
        assertEquals(7, config.rnrRetry());
        assertEquals(14, config.timeout());
        assertEquals(0, config.serviceLevel());
        assertEquals(128, config.queueDepth());
        assertEquals(236, config.maxInline());
        assertEquals(PollMode.ADAPTIVE, config.pollMode());
        assertEquals(0, config.adaptiveSpinMicros()); // learned
        assertEquals(Transport.AUTO, config.transport());
        assertEquals(512, config.sharedReceiveBuffers());
    }

    @Test
    void sharedReceiveBuffersFromTheBuilderAndTheEnvironment() {
        assertEquals(0, RdmaConfig.builder().sharedReceiveBuffers(0).build().sharedReceiveBuffers(), "0: a queue per queue pair");
        assertEquals(64, RdmaConfig.fromEnvironment(Map.of("RDMA_SHARED_RECEIVE_BUFFERS", "64")).sharedReceiveBuffers());
        ConfigurationException bad = assertThrows(ConfigurationException.class,
                () -> RdmaConfig.fromEnvironment(Map.of("RDMA_SHARED_RECEIVE_BUFFERS", "16385")));
        assertTrue(bad.getMessage().startsWith("RDMA_SHARED_RECEIVE_BUFFERS=16385 is out of range; allowed: 0..16384"),
                bad.getMessage());
        assertThrows(ConfigurationException.class, () -> RdmaConfig.builder().sharedReceiveBuffers(-1));
        assertTrue(RdmaConfig.builder().build().toString().contains("sharedReceiveBuffers=512"));
    }

    @Test
    void toBuilderDerivesAConfigurationAndLeavesTheOriginalAsItWas() {
        byte[] key = new byte[32];
        RdmaConfig original = RdmaConfig.builder().transport(Transport.SHM).eagerSize(8192).queueDepth(64)
                .preSharedKey(key).build();
        RdmaConfig derived = original.toBuilder().pollMode(PollMode.CALLER).queueDepth(32).build();
        assertEquals(PollMode.CALLER, derived.pollMode());
        assertEquals(32, derived.queueDepth());
        assertEquals(Transport.SHM, derived.transport());
        assertEquals(8192, derived.eagerSize());
        assertEquals(32, derived.preSharedKey().length);
        assertEquals(PollMode.ADAPTIVE, original.pollMode());
        assertEquals(64, original.queueDepth());
    }

    @Test
    void readsTheTransportVariable() {
        assertEquals(Transport.SHM, RdmaConfig.fromEnvironment(Map.of("RDMA_TRANSPORT", "Shm")).transport());
        assertEquals(Transport.TCP, RdmaConfig.fromEnvironment(Map.of("RDMA_TRANSPORT", "tcp")).transport());
        assertEquals(Transport.VERBS, RdmaConfig.builder().transport(Transport.VERBS).build().transport());
        ConfigurationException bad = assertThrows(ConfigurationException.class,
                () -> RdmaConfig.fromEnvironment(Map.of("RDMA_TRANSPORT", "ib")));
        assertEquals("RDMA_TRANSPORT='ib' is not a transport; allowed: auto, verbs, tcp, shm", bad.getMessage());
        assertThrows(NullPointerException.class, () -> RdmaConfig.builder().transport(null));
    }

    @Test
    void readsEveryVariable() {
        RdmaConfig config = RdmaConfig.fromEnvironment(Map.of("RDMA_DEVICE", "mlx5_1", "RDMA_DEVICE_PORT", "2",
                "RDMA_GID_INDEX", "3", "RDMA_MTU", "2048", "RDMA_PKEY", "1", "RDMA_QUEUE_DEPTH", "512",
                "RDMA_TIMEOUT", "18", "RDMA_RETRY_CNT", "4", "RDMA_SL", "5", "RDMA_TRAFFIC_CLASS", "106"));
        assertEquals("mlx5_1", config.device());
        assertEquals(2, config.port());
        assertEquals(3, config.gidIndex());
        assertEquals(2048, config.mtu());
        assertEquals(1, config.pkeyIndex());
        assertEquals(512, config.queueDepth());
        assertEquals(18, config.timeout());
        assertEquals(4, config.retryCount());
        assertEquals(5, config.serviceLevel());
        assertEquals(106, config.trafficClass());
    }

    @Test
    void readsThePollModeVariables() {
        RdmaConfig config = RdmaConfig.fromEnvironment(Map.of("RDMA_POLL_MODE", "Busy", "RDMA_ADAPTIVE_SPIN_US", "250"));
        assertEquals(PollMode.BUSY, config.pollMode());
        assertEquals(250, config.adaptiveSpinMicros());
        ConfigurationException bad = assertThrows(ConfigurationException.class,
                () -> RdmaConfig.fromEnvironment(Map.of("RDMA_POLL_MODE", "spin")));
        assertEquals("RDMA_POLL_MODE='spin' is not a poll mode; allowed: event, adaptive, busy", bad.getMessage());
        ConfigurationException caller = assertThrows(ConfigurationException.class,
                () -> RdmaConfig.fromEnvironment(Map.of("RDMA_POLL_MODE", "caller")));
        assertTrue(caller.getMessage().contains("RdmaContext.progress"), "a program configured from the environment "
                + "does not drive its context: " + caller.getMessage());
        assertEquals(PollMode.CALLER, RdmaConfig.builder().pollMode(PollMode.CALLER).build().pollMode(), "set in code");
        bad = assertThrows(ConfigurationException.class, () -> RdmaConfig.fromEnvironment(Map.of("RDMA_ADAPTIVE_SPIN_US", "-1")));
        assertTrue(bad.getMessage().startsWith("RDMA_ADAPTIVE_SPIN_US=-1 is out of range; allowed: 0..1000000"), bad.getMessage());
    }

    @Test
    void blankVariablesKeepDefaults() {
        RdmaConfig config = RdmaConfig.fromEnvironment(Map.of("RDMA_DEVICE", " ", "RDMA_MTU", ""));
        assertNull(config.device());
        assertEquals(0, config.mtu());
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
        "RDMA_MTU|1500|RDMA_MTU=1500 is not a verbs MTU; allowed: 256, 512, 1024, 2048, 4096",
        "RDMA_MTU|abc|RDMA_MTU='abc' is not an integer",
        "RDMA_SL|8|RDMA_SL=8 is out of range; allowed: 0..7",
        "RDMA_SL|-1|RDMA_SL=-1 is out of range; allowed: 0..7",
        "RDMA_TRAFFIC_CLASS|256|RDMA_TRAFFIC_CLASS=256 is out of range; allowed: 0..255",
        "RDMA_RETRY_CNT|7|RDMA_RETRY_CNT=7 means retry forever",
        "RDMA_RETRY_CNT|9|RDMA_RETRY_CNT=9 is out of range; allowed: 0..6",
        "RDMA_TIMEOUT|0|RDMA_TIMEOUT=0 means wait forever",
        "RDMA_TIMEOUT|32|RDMA_TIMEOUT=32 is out of range; allowed: 1..31",
        "RDMA_QUEUE_DEPTH|0|RDMA_QUEUE_DEPTH=0 is out of range",
        "RDMA_GID_INDEX|-2|RDMA_GID_INDEX=-2 is out of range",
        "RDMA_PKEY|70000|RDMA_PKEY=70000 is out of range",
        "RDMA_DEVICE|a/b|RDMA_DEVICE='a/b' is not a device name",
        "RDMA_DEVICE_PORT|0|RDMA_DEVICE_PORT=0 is out of range; allowed: 1..255",
    })
    void invalidValuesNameTheVariableTheValueAndWhatIsAllowed(String variable, String value, String message) {
        Map<String, String> env = variable.equals("RDMA_DEVICE_PORT") ? Map.of(variable, value, "RDMA_DEVICE", "rxe0")
                : Map.of(variable, value);
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> RdmaConfig.fromEnvironment(env));
        assertTrue(e.getMessage().startsWith(message), e.getMessage());
    }

    @Test
    void portOnlyTogetherWithDevice() {
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> RdmaConfig.fromEnvironment(Map.of("RDMA_DEVICE_PORT", "1")));
        assertTrue(e.getMessage().contains("RDMA_DEVICE_PORT=1 is only allowed together with RDMA_DEVICE"), e.getMessage());
        ConfigurationException inCode = assertThrows(ConfigurationException.class, () -> RdmaConfig.builder().port(1).build());
        assertTrue(inCode.getMessage().contains("port=1 is only allowed together with device"), inCode.getMessage());
    }

    @Test
    void builderChecksAtOnce() {
        assertThrows(ConfigurationException.class, () -> RdmaConfig.builder().mtu(9000));
        assertThrows(ConfigurationException.class, () -> RdmaConfig.builder().rnrRetry(8));
        assertThrows(ConfigurationException.class, () -> RdmaConfig.builder().completionQueueSize(0));
        assertThrows(ConfigurationException.class, () -> RdmaConfig.builder().maxInline(-1));
        assertThrows(ConfigurationException.class, () -> RdmaConfig.builder().maxInline(1025));
        assertEquals(0, RdmaConfig.builder().maxInline(0).build().maxInline());
        RdmaConfig config = RdmaConfig.builder().device("rxe0").port(1).pollMode(PollMode.BUSY).completionQueueSize(1024).build();
        assertEquals(PollMode.BUSY, config.pollMode());
        assertThrows(ConfigurationException.class, () -> RdmaConfig.builder().adaptiveSpinMicros(-1));
        assertEquals(0, RdmaConfig.builder().adaptiveSpinMicros(0).build().adaptiveSpinMicros());
        assertEquals(5, RdmaConfig.builder().adaptiveSpinMicros(5).build().adaptiveSpinMicros());
        assertThrows(ConfigurationException.class, () -> RdmaConfig.builder().rendezvousChunkSize(4095));
        assertEquals(1 << 20, RdmaConfig.builder().build().rendezvousChunkSize());
        assertEquals(4096, RdmaConfig.builder().rendezvousChunkSize(4096).build().rendezvousChunkSize());
        assertEquals(1024, config.completionQueueSize());
        assertTrue(config.toString().contains("device=rxe0"), config.toString());
    }
}
