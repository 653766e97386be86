package org.jrdma.rxe.verbs;

import java.nio.ByteBuffer;
import org.jrdma.Rdma;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RegistrationException;

/** Run by MemlockTest as an unprivileged user with a small memlock limit: registers 4 KiB, then 8 MiB. */
public final class MemlockProbe {
    private MemlockProbe() {
    }

    public static void main(String[] args) {
        try (RdmaContext ctx = Rdma.open(RdmaConfig.builder().device("rxe0").build())) {
            ctx.register(ByteBuffer.allocateDirect(4096)).close();
            System.out.println("SMALL-OK");
            try {
                ctx.register(ByteBuffer.allocateDirect(8 << 20));
                System.out.println("LARGE-OK");
            } catch (RegistrationException e) {
                System.out.println("REGISTRATION-FAILED errno=" + e.errno());
                System.out.println("MESSAGE " + e.getMessage());
            }
        }
    }
}
