package org.jrdma.rxe.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jrdma.Access;
import org.jrdma.Rdma;
import org.jrdma.RdmaContext;
import org.jrdma.RegisteredBuffer;
import org.jrdma.RegistrationException;
import org.jrdma.rxe.contract.ContextLifecycleContract;
import org.jrdma.rxe.contract.RxeEnvironment;
import org.junit.jupiter.api.Test;

/** Registration on a real device: many buffers, least-privilege keys, pool reuse, rejected inputs. */
class RegistrationTest {
    @Test
    void manyBuffersRegisterAndDeregister() throws Exception {
        RxeEnvironment.requireDevices();
        Map<String, Integer> before = ContextLifecycleContract.resourceCounts();
        try (RdmaContext ctx = Rdma.open(ContextLifecycleContract.rxe0())) {
            List<RegisteredBuffer> buffers = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                RegisteredBuffer b = ctx.register(ByteBuffer.allocateDirect(4096));
                b.buffer().putInt(0, i);
                buffers.add(b);
            }
            assertEquals(before.getOrDefault("rxe0.mr", 0) + 1000, ContextLifecycleContract.resourceCounts().get("rxe0.mr"));
            for (int i = 0; i < buffers.size(); i++) {
                assertEquals(i, buffers.get(i).buffer().getInt(0));
                buffers.get(i).close();
            }
            assertEquals(before.get("rxe0.mr"), ContextLifecycleContract.resourceCounts().get("rxe0.mr"));
        }
    }

    /** Past the JVM's direct-memory limit: jrdma's own exception, naming the limit and the remedy. */
    @Test
    void beyondTheDirectMemoryLimitTheErrorNamesTheLimit() {
        RxeEnvironment.requireDevices();
        try (RdmaContext ctx = Rdma.open(ContextLifecycleContract.rxe0())) {
            RegistrationException e = assertThrows(RegistrationException.class,
                    () -> ctx.allocate(Integer.MAX_VALUE));
            assertEquals(12, e.errno());
            assertTrue(e.getMessage().contains("-XX:MaxDirectMemorySize") && e.getMessage().contains("ulimit -l"),
                    e.getMessage());
            ctx.allocate(4096).close(); // the context is still usable
        }
    }

    @Test
    void localOnlyUnlessRemoteAccessIsAsked() {
        RxeEnvironment.requireDevices();
        try (RdmaContext ctx = Rdma.open(ContextLifecycleContract.rxe0())) {
            RegisteredBuffer local = ctx.allocate(4096);
            assertEquals(Set.of(), local.access());
            IllegalStateException e = assertThrows(IllegalStateException.class, local::rkey);
            assertTrue(e.getMessage().contains("local access only"), e.getMessage());
            RegisteredBuffer remote = ctx.register(ByteBuffer.allocateDirect(4096), Access.REMOTE_READ, Access.REMOTE_WRITE);
            assertEquals(Set.of(Access.REMOTE_READ, Access.REMOTE_WRITE), remote.access());
            remote.rkey(); // present
            assertEquals(4096, remote.length());
            assertNotEquals(0, remote.address());
        }
    }

    @Test
    void registersTheRemainingBytesOfTheBuffer() {
        RxeEnvironment.requireDevices();
        try (RdmaContext ctx = Rdma.open(ContextLifecycleContract.rxe0())) {
            ByteBuffer big = ByteBuffer.allocateDirect(8192);
            big.position(1024).limit(3072);
            RegisteredBuffer window = ctx.register(big);
            assertEquals(2048, window.length());
            window.buffer().put(0, (byte) 7);
            assertEquals(7, big.get(1024));
        }
    }

    @Test
    void rejectsHeapReadOnlyAndEmptyBuffers() {
        RxeEnvironment.requireDevices();
        try (RdmaContext ctx = Rdma.open(ContextLifecycleContract.rxe0())) {
            IllegalArgumentException heap = assertThrows(IllegalArgumentException.class, () -> ctx.register(ByteBuffer.allocate(64)));
            assertTrue(heap.getMessage().contains("only direct ByteBuffers"), heap.getMessage());
            assertThrows(IllegalArgumentException.class, () -> ctx.register(ByteBuffer.allocateDirect(64).asReadOnlyBuffer()));
            assertThrows(IllegalArgumentException.class, () -> ctx.register(ByteBuffer.allocateDirect(0)));
            assertThrows(IllegalArgumentException.class, () -> ctx.allocate(0));
        }
    }

    @Test
    void poolReusesClosedBlocksAndServesLargeSizesDirectly() throws Exception { // remote blocks: ScopedTokenTest
        RxeEnvironment.requireDevices();
        try (RdmaContext ctx = Rdma.open(ContextLifecycleContract.rxe0())) {
            RegisteredBuffer first = ctx.allocate(5000);
            assertEquals(8192, first.length(), "rounded up to its size class");
            long address = first.address();
            int mrs = ContextLifecycleContract.resourceCounts().get("rxe0.mr");
            first.close();
            RegisteredBuffer again = ctx.allocate(6000);
            assertEquals(address, again.address(), "the closed block is handed out again");
            List<RegisteredBuffer> many = new ArrayList<>();
            for (int i = 0; i < 200; i++) { // 200 x 8 KiB: within one 2 MiB slab
                many.add(ctx.allocate(8192));
            }
            assertEquals(mrs, ContextLifecycleContract.resourceCounts().get("rxe0.mr"), "no registration per allocation");
            many.forEach(RegisteredBuffer::close);
            RegisteredBuffer large = ctx.allocate(3 << 20);
            assertEquals(3 << 20, large.length());
            assertEquals(mrs + 1, ContextLifecycleContract.resourceCounts().get("rxe0.mr"));
            RegisteredBuffer remote = ctx.allocate(8192, Access.REMOTE_WRITE); // a block of the existing slab
            remote.rkey(); // a registration of exactly its block grants remote write
            assertEquals(mrs + 2, ContextLifecycleContract.resourceCounts().get("rxe0.mr"), "one per remote-access block");
            remote.close();
            assertEquals(mrs + 1, ContextLifecycleContract.resourceCounts().get("rxe0.mr"), "deregistered when closed");
        }
    }
}
