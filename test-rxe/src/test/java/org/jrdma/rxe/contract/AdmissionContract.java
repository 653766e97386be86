package org.jrdma.rxe.contract;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jrdma.AdmissionPolicy;
import org.jrdma.AdmissionPolicy.Admission;
import org.jrdma.AdmissionRefusedException;
import org.jrdma.ConnectionRequest;
import org.jrdma.RdmaChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A server's admission policy decides on every incoming connection before anything is created for
 * it: it sees the peer's address and connect data, and a refused client gets the policy's code and
 * reason. Queue pairs and registrations are counted with {@code rdma resource show}.
 */
public abstract class AdmissionContract {
    /** {@return what this run of the contract goes over} */
    protected abstract Fabric fabric();

    private static final byte[] TENANT = "tenant-7".getBytes(StandardCharsets.US_ASCII);

    private static Throwable connectFailure(Endpoints e, InetSocketAddress address, byte[] data) {
        ExecutionException failed = assertThrows(ExecutionException.class,
                () -> e.client.connect(address, e.clientAddress, (ch, m) -> { }, data).get(30, TimeUnit.SECONDS));
        return failed.getCause();
    }

    /** The server device's queue pairs and registrations (over verbs; over TCP nothing is asked: empty). */
    private Map<String, Integer> serverResources() throws Exception {
        if (fabric() != Fabric.VERBS) {
            return Map.of();
        }
        Map<String, Integer> all = ContextLifecycleContract.resourceCounts();
        String device = RxeEnvironment.serverDevice();
        return Map.of("qp", all.getOrDefault(device + ".qp", 0), "mr", all.getOrDefault(device + ".mr", 0));
    }

    @Test
    void thePolicySeesAddressAndDataAndARefusedClientGetsCodeAndReason() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            InetSocketAddress address = e.address();
            BlockingQueue<ConnectionRequest> seen = new ArrayBlockingQueue<>(8);
            AdmissionPolicy policy = request -> {
                seen.add(request);
                return Arrays.equals(request.data(), TENANT) ? Admission.accept()
                        : Admission.reject(403, "tenant unknown");
            };
            e.server.listen(address, (ch, m) -> { }, policy);

            RdmaChannel admitted = e.client.connect(address, e.clientAddress, (ch, m) -> { }, TENANT).get(30, TimeUnit.SECONDS);
            assertTrue(admitted.isOpen());
            ConnectionRequest first = seen.poll(10, TimeUnit.SECONDS);
            assertArrayEquals(TENANT, first.data());
            assertEquals(e.clientAddress, first.peer().getAddress(), "the policy sees where the request comes from");

            Map<String, Integer> before = serverResources();
            AdmissionRefusedException refused = assertInstanceOf(AdmissionRefusedException.class,
                    connectFailure(e, address, "tenant-9".getBytes(StandardCharsets.US_ASCII)));
            assertEquals(403, refused.code());
            assertEquals("tenant unknown", refused.serverReason());
            assertTrue(refused.getMessage().contains("tenant unknown"), refused.getMessage());
            assertInstanceOf(AdmissionRefusedException.class, connectFailure(e, address, null), "no data: refused too");
            assertEquals(before, serverResources(), "nothing was created on the server for refused peers");
            assertEquals(2, seen.size(), "both refused requests reached the policy");
            assertTrue(admitted.isOpen(), "the admitted channel is not affected");
        }
    }

    @Test
    void aPolicyThatThrowsRefusesAndTheServerGoesOn() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            InetSocketAddress address = e.address();
            boolean[] fail = {true};
            e.server.listen(address, (ch, m) -> { }, request -> {
                if (fail[0]) {
                    throw new IllegalStateException("policy bug");
                }
                return Admission.accept();
            });
            AdmissionRefusedException refused = assertInstanceOf(AdmissionRefusedException.class,
                    connectFailure(e, address, TENANT));
            assertEquals(-1, refused.code());
            fail[0] = false;
            assertTrue(e.client.connect(address, e.clientAddress, (ch, m) -> { }, TENANT).get(30, TimeUnit.SECONDS).isOpen());
        }
    }

    @Test
    void connectDataIsBoundedAndIgnoredWithoutAPolicy() throws Exception {
        try (Endpoints e = new Endpoints(fabric())) {
            InetSocketAddress address = e.address();
            e.listen(address, (ch, m) -> { });
            assertThrows(IllegalArgumentException.class,
                    () -> e.client.connect(address, e.clientAddress, (ch, m) -> { }, new byte[ConnectionRequest.MAX_DATA + 1]));
            RdmaChannel channel = e.client.connect(address, e.clientAddress, (ch, m) -> { },
                    new byte[ConnectionRequest.MAX_DATA]).get(30, TimeUnit.SECONDS);
            assertTrue(channel.isOpen());
        }
    }
}
