package org.jrdma.rxe.tcp;

import org.jrdma.rxe.contract.AuthenticationContract;
import org.jrdma.rxe.contract.Fabric;
import org.junit.jupiter.api.Tag;

/** The Authentication contract over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpAuthenticationTest extends AuthenticationContract {
    @Override
    protected Fabric fabric() {
        return Fabric.TCP;
    }
}
