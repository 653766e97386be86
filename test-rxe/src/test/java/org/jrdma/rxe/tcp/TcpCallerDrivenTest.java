package org.jrdma.rxe.tcp;

import org.jrdma.rxe.contract.CallerDrivenContract;
import org.jrdma.rxe.contract.Fabric;
import org.junit.jupiter.api.Tag;

/** The caller-driven contract over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpCallerDrivenTest extends CallerDrivenContract {
    @Override
    protected Fabric fabric() {
        return Fabric.TCP;
    }
}
