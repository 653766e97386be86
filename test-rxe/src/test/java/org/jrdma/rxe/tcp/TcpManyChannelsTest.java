package org.jrdma.rxe.tcp;

import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.ManyChannelsContract;
import org.junit.jupiter.api.Tag;

/** Ten thousand channels over TCP in one context (loopback; runs on the host in mvn verify). */
@Tag("tcp")
class TcpManyChannelsTest extends ManyChannelsContract {
    @Override
    protected Fabric fabric() {
        return Fabric.TCP;
    }

    @Override
    protected int channels() {
        return 10_000;
    }
}
