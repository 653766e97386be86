package org.jrdma.rxe;

import org.junit.jupiter.api.Tag;

/** The Authentication contract over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpAuthenticationTest extends AuthenticationContract {
    @Override
    Fabric fabric() {
        return Fabric.TCP;
    }
}
