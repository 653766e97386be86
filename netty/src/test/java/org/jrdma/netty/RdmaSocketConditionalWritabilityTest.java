package org.jrdma.netty;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketConditionalWritabilityTest;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * Netty's SocketConditionalWritabilityTest over jrdma. Netty bounds it by 30 s, which holds over TCP and shared
 * memory; over Soft-RoCE in the emulated VM its 100 MiB in 16 KiB writes (one write in flight per water-mark
 * swing) take about that long — passing in some runs, timing out in others — so there the bound is 300 s.
 * What it checks, every byte arriving while writability swings, is unchanged.
 */
class RdmaSocketConditionalWritabilityTest extends SocketConditionalWritabilityTest {
    private static final Duration BOUND = Duration.ofSeconds(RdmaSocketTestPermutation.overVerbs() ? 300 : 30);

    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return RdmaSocketTestPermutation.INSTANCE.socket();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return RdmaSocketTestPermutation.newSocketAddress();
    }

    @Override
    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS) // the bound below is the test's; this one only replaces Netty's 30 s
    public void testConditionalWritability(TestInfo testInfo) throws Throwable {
        assertTimeoutPreemptively(BOUND, () -> super.testConditionalWritability(testInfo));
    }
}
