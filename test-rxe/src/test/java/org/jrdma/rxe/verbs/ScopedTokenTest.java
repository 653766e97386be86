package org.jrdma.rxe.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jrdma.Access;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaOperationException;
import org.jrdma.RegisteredBuffer;
import org.jrdma.RemoteBuffer;
import org.jrdma.rxe.contract.Endpoints;
import org.jrdma.rxe.contract.ResourceBaseline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A token grants exactly its buffer: a peer that puts a neighbouring block's address next to a
 * buffer's rkey, or keeps using the token of a closed buffer whose memory was handed out again, gets
 * a remote access error on that channel — and the bytes it aimed at stay untouched.
 */
@ExtendWith(ResourceBaseline.class) // the fault leaves no resource behind
class ScopedTokenTest {
    private static final int REM_ACCESS_ERR = 10;

    private static void fill(RegisteredBuffer buffer, byte value) {
        for (int i = 0; i < buffer.length(); i++) {
            buffer.buffer().put(i, value);
        }
    }

    private static void assertAll(RegisteredBuffer buffer, byte value) {
        for (int i = 0; i < buffer.length(); i++) {
            assertEquals(value, buffer.buffer().get(i), "byte " + i + " of " + buffer);
        }
    }

    /** Writes 64 bytes of 0x77 through the token and expects the peer's HCA to refuse it. */
    private static void assertWriteRefused(Endpoints e, RemoteBuffer token) throws Exception {
        InetSocketAddress address = Endpoints.nextAddress();
        e.listen(address, (ch, m) -> { });
        RdmaChannel channel = e.connect(address, (ch, m) -> { });
        RegisteredBuffer out = e.client.allocate(4096);
        fill(out, (byte) 0x77);
        ExecutionException failed = assertThrows(ExecutionException.class,
                () -> channel.write(out, 0, token, 0, 64).get(60, TimeUnit.SECONDS));
        RdmaOperationException error = assertInstanceOf(RdmaOperationException.class, failed.getCause());
        assertEquals(REM_ACCESS_ERR, error.status(), error.getMessage());
        channel.closeFuture().get(60, TimeUnit.SECONDS);
        out.close();
    }

    @Test
    void aTokenWithANeighboursAddressWritesNothing() throws Exception {
        try (Endpoints e = new Endpoints()) {
            RegisteredBuffer exposed = e.server.allocate(4096, Access.REMOTE_WRITE);
            RegisteredBuffer neighbour = e.server.allocate(4096, Access.REMOTE_WRITE);
            // Adjacent blocks of one slab: before tokens were scoped, the slab's rkey reached both.
            assertEquals(exposed.address() + 4096, neighbour.address(), "the pool hands out adjacent blocks");
            fill(neighbour, (byte) 0x11);
            assertWriteRefused(e, new RemoteBuffer(neighbour.address(), 4096, exposed.rkey()));
            assertAll(neighbour, (byte) 0x11);
            // The exposed buffer's own token still works on a new channel.
            InetSocketAddress address = Endpoints.nextAddress();
            e.listen(address, (ch, m) -> { });
            RdmaChannel channel = e.connect(address, (ch, m) -> { });
            RegisteredBuffer out = e.client.allocate(4096);
            fill(out, (byte) 0x22);
            channel.write(out, 0, exposed.remote(), 0, 4096).get(60, TimeUnit.SECONDS);
            assertAll(exposed, (byte) 0x22);
            assertAll(neighbour, (byte) 0x11);
        }
    }

    @Test
    void aClosedBuffersTokenFailsAlthoughItsMemoryIsHandedOutAgain() throws Exception {
        try (Endpoints e = new Endpoints()) {
            RegisteredBuffer first = e.server.allocate(4096, Access.REMOTE_WRITE);
            RemoteBuffer oldToken = first.remote();
            long address = first.address();
            first.close();
            RegisteredBuffer reused = e.server.allocate(4096, Access.REMOTE_WRITE);
            assertEquals(address, reused.address(), "the pool reuses the block");
            assertTrue(reused.rkey() != oldToken.rkey(), "the block has a new key");
            fill(reused, (byte) 0x33);
            assertWriteRefused(e, oldToken);
            assertAll(reused, (byte) 0x33);
        }
    }

    @Test
    void localOnlyBuffersOfThePoolHaveNoToken() throws Exception {
        try (Endpoints e = new Endpoints()) {
            RegisteredBuffer local = e.server.allocate(4096);
            assertThrows(IllegalStateException.class, local::rkey);
            assertEquals(Set.of(), local.access());
        }
    }
}
