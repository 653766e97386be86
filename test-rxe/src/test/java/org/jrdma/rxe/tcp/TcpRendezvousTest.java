package org.jrdma.rxe.tcp;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.RendezvousContract;
import org.junit.jupiter.api.Tag;

/** The Rendezvous contract over the TCP transport (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpRendezvousTest extends RendezvousContract {
    @Override
    protected Fabric fabric() {
        return Fabric.TCP;
    }
}
