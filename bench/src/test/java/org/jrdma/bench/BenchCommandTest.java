package org.jrdma.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class BenchCommandTest {
    @Test
    void aFailedCaseShowsEveryCauseNotOnlyTheTopOne() {
        Exception failure = new IllegalStateException("write_bw failed",
                new RuntimeException("RDMA_WRITE failed", new IllegalArgumentException("RETRY_EXC_ERR")));
        assertEquals("java.lang.IllegalStateException: write_bw failed <- java.lang.RuntimeException: RDMA_WRITE failed"
                + " <- java.lang.IllegalArgumentException: RETRY_EXC_ERR", BenchCommand.causeChain(failure));
    }

    @Test
    void aCauseCycleEnds() {
        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b", a);
        a.initCause(b);
        assertEquals("java.lang.RuntimeException: a <- java.lang.RuntimeException: b", BenchCommand.causeChain(a));
    }
}
