package org.jrdma.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketSslSessionReuseTest;
import io.netty.handler.ssl.SslContextBuilder;
import java.net.SocketAddress;
import java.util.List;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Netty's SocketSslSessionReuseTest over jrdma. */
class RdmaSocketSslSessionReuseTest extends SocketSslSessionReuseTest {
    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return RdmaSocketTestPermutation.INSTANCE.socket();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return RdmaSocketTestPermutation.newSocketAddress();
    }

    @Test
    @Override
    @Disabled("needs OpenSSL through netty-tcnative, which this module's tests leave out (its JDK-engine cases run"
            + " in testSslSessionReuse, and TLS over jrdma in RdmaSocketSslEchoTest's 96 permutations)")
    public void testSslSessionTrustManagerResumption(SslContextBuilder serverCtx, SslContextBuilder clientCtx,
                                                     TestInfo testInfo) {
    }
}
