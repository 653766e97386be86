package org.jrdma.netty;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.socket.SocketConnectionAttemptTest;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jrdma.AdmissionPolicy;
import org.jrdma.Rdma;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaServer;
import org.jrdma.Transport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Netty's SocketConnectionAttemptTest over jrdma. */
class RdmaSocketConnectionAttemptTest extends SocketConnectionAttemptTest {
    @Override
    protected List<BootstrapFactory<Bootstrap>> newFactories() {
        return RdmaSocketTestPermutation.INSTANCE.clientSocket();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return RdmaSocketTestPermutation.newSocketAddress();
    }

    /**
     * Netty's test cancels a connect to an unroutable address (198.51.100.254), which it expects to hang;
     * some networks answer it (a transparent proxy on this project's CI machines replies "HTTP/1.1 400",
     * which jrdma rejects as a malformed handshake before the test can cancel). The same test against a
     * peer that is certain to stay silent: a jrdma listener (TCP and shared memory) whose admission policy
     * does not decide until the test is over, so each connect waits until it is cancelled.
     */
    @Test
    @Override
    public void testConnectCancellation(TestInfo testInfo) throws Throwable {
        CountDownLatch testOver = new CountDownLatch(1);
        // TCP and shared memory on the host, verbs on the servers' device in the VM.
        try (RdmaContext peer = Rdma.open(RdmaSocketTestPermutation.config(Transport.AUTO, "jrdma.netty.serverDevice"))) {
            RdmaServer silent = peer.listen((InetSocketAddress) newSocketAddress(), (ch, m) -> { },
                    request -> {
                        try {
                            testOver.await(60, TimeUnit.SECONDS); // holds the peer's loop: nothing is answered
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return AdmissionPolicy.Admission.reject(1, "the test is over");
                    });
            try {
                run(testInfo, cb -> {
                    cb.handler(new ChannelInboundHandlerAdapter()).option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 4000);
                    ChannelFuture future = cb.connect(silent.localAddress());
                    try {
                        assertFalse(future.await(1000), "the connect to a silent peer ended: " + future.cause());
                        assertTrue(future.cancel(true), "cancellable, as a non-blocking socket's connect is");
                        assertTrue(future.channel().closeFuture().await(10, TimeUnit.SECONDS));
                        assertTrue(future.isCancelled());
                    } finally {
                        future.channel().close();
                    }
                });
            } finally {
                testOver.countDown();
            }
        }
    }
}
