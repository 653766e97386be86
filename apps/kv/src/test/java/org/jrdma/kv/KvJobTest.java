package org.jrdma.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.jrdma.ConfigurationException;
import org.junit.jupiter.api.Test;

/** RDMA_KV_* as ps-lite's DMLC_* variables: each one checked, a bad one named in the failure. */
class KvJobTest {
    private static Map<String, String> variables(String... pairs) {
        Map<String, String> map = new HashMap<>(Map.of("RDMA_KV_ROLE", "worker", "RDMA_KV_SCHEDULER", "127.0.0.1:9000",
                "RDMA_KV_NUM_WORKERS", "4", "RDMA_KV_NUM_SERVERS", "2"));
        for (int i = 0; i < pairs.length; i += 2) {
            if (pairs[i + 1] == null) {
                map.remove(pairs[i]);
            } else {
                map.put(pairs[i], pairs[i + 1]);
            }
        }
        return map;
    }

    private static void refused(String variable, String... pairs) {
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> KvJob.fromVariables(variables(pairs)));
        assertTrue(e.getMessage().startsWith(variable), e.getMessage());
    }

    @Test
    void aWorkersJobReadsTheRequiredVariablesAndDefaultsTheOthers() {
        KvJob job = KvJob.fromVariables(variables());
        assertEquals(KvRole.WORKER, job.role());
        assertEquals(new InetSocketAddress("127.0.0.1", 9000), job.scheduler());
        assertEquals(4, job.workers());
        assertEquals(2, job.servers());
        assertNull(job.address());
        assertEquals(KvJob.DEFAULT_JOIN_TIMEOUT, job.joinTimeout());
    }

    @Test
    void aServersAddressMayOmitItsPortAndIPv6IsBracketed() {
        KvJob server = KvJob.fromVariables(variables("RDMA_KV_ROLE", " Server ", "RDMA_KV_ADDRESS", "127.0.0.1",
                "RDMA_KV_SCHEDULER", "[::1]:9001", "RDMA_KV_JOIN_TIMEOUT_MS", "2500"));
        assertEquals(KvRole.SERVER, server.role());
        assertEquals(new InetSocketAddress("127.0.0.1", 0), server.address());
        assertEquals(new InetSocketAddress("::1", 9001), server.scheduler());
        assertEquals(Duration.ofMillis(2500), server.joinTimeout());
        assertEquals(new InetSocketAddress("127.0.0.1", 7000),
                KvJob.fromVariables(variables("RDMA_KV_ADDRESS", "127.0.0.1:7000")).address());
    }

    @Test
    void eachMissingOrMalformedVariableIsNamed() {
        refused("RDMA_KV_ROLE", "RDMA_KV_ROLE", null);
        refused("RDMA_KV_ROLE", "RDMA_KV_ROLE", "master");
        refused("RDMA_KV_SCHEDULER", "RDMA_KV_SCHEDULER", null);
        refused("RDMA_KV_SCHEDULER", "RDMA_KV_SCHEDULER", "127.0.0.1");
        refused("RDMA_KV_SCHEDULER", "RDMA_KV_SCHEDULER", "127.0.0.1:0");
        refused("RDMA_KV_SCHEDULER", "RDMA_KV_SCHEDULER", "127.0.0.1:65536");
        refused("RDMA_KV_SCHEDULER", "RDMA_KV_SCHEDULER", "no-such-host.invalid:9000");
        refused("RDMA_KV_NUM_WORKERS", "RDMA_KV_NUM_WORKERS", "0");
        refused("RDMA_KV_NUM_WORKERS", "RDMA_KV_NUM_WORKERS", "four");
        refused("RDMA_KV_NUM_SERVERS", "RDMA_KV_NUM_SERVERS", "65537");
        refused("RDMA_KV_NUM_SERVERS", "RDMA_KV_NUM_SERVERS", " ");
        refused("RDMA_KV_ADDRESS", "RDMA_KV_ADDRESS", "127.0.0.1:x");
        refused("RDMA_KV_JOIN_TIMEOUT_MS", "RDMA_KV_JOIN_TIMEOUT_MS", "0");
    }
}
