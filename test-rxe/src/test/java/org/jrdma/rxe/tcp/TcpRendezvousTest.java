package org.jrdma.rxe;

import org.junit.jupiter.api.Tag;

/** The Rendezvous contract over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpRendezvousTest extends RendezvousContract {
    @Override
    Fabric fabric() {
        return Fabric.TCP;
    }
}
