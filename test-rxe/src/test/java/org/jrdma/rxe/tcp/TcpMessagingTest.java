package org.jrdma.rxe;

import org.junit.jupiter.api.Tag;

/** The Messaging contract over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpMessagingTest extends MessagingContract {
    @Override
    Fabric fabric() {
        return Fabric.TCP;
    }
}
