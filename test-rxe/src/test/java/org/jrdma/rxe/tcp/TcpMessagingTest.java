package org.jrdma.rxe.tcp;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.MessagingContract;
import org.junit.jupiter.api.Tag;

/** The Messaging contract over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpMessagingTest extends MessagingContract {
    @Override
    protected Fabric fabric() {
        return Fabric.TCP;
    }
}
