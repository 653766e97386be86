package org.jrdma.rxe.contract;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.Map;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaConfigBuilder;
import org.jrdma.Transport;

/**
 * What a contract test runs over (the contract classes are written once; each transport has a
 * subclass): verbs on the Soft-RoCE devices of the VM (rxe0, and rxe1 across the veth pair in the
 * two-device topology), TCP over loopback, or shared memory between two contexts of this host (set up
 * over loopback); the last two run anywhere (the host's mvn verify).
 */
public enum Fabric {
    VERBS, TCP, SHM;

    private static int nextPort = 19000;
    // Below the kernel's ephemeral range (32768 and up by default), where the tests' own client
    // sockets take their ports: a server port there can be in use by one of them.
    private static int nextTcpPort = 20000 + (int) (ProcessHandle.current().pid() % 100) * 100;

    /** Fails the test when the fabric is not there (a missing device is a failure, never a skip). */
    public void require() {
        if (this == VERBS) {
            RxeEnvironment.requireDevices();
        }
    }

    public RdmaConfig serverConfig(RdmaConfigBuilder config) {
        return this == VERBS ? emulatedVerbs(config).device(RxeEnvironment.serverDevice()).build()
                : config.transport(Transport.valueOf(name())).build();
    }

    public RdmaConfig clientConfig(RdmaConfigBuilder config) {
        return this == VERBS ? emulatedVerbs(config).device(RxeEnvironment.clientDevice()).build()
                : config.transport(Transport.valueOf(name())).build();
    }

    /**
     * Soft-RoCE in a two-vCPU guest without KVM answers late, not lossily: the VM's rxe counters grew
     * by 10 retransmission timeouts (completer_retry_err) and ~250 duplicate requests during three
     * KeyedTransferTest runs while neither veth dropped a packet (before rxe-setup.sh kept each flow in order:
     * the link reordered packets, which makes rxe retransmit with nothing lost: docs/testing.md). With the default ACK timeout
     * (RDMA_TIMEOUT 14: 67 ms, 7 tries, about 0.5 s) a stalled responder ended a channel with
     * RETRY_EXC_ERR now and then; about 1 s per try (18), as docs/configuration.md advises for a slow
     * fabric, keeps the tests on what they are about. A test that sets its own timeout keeps it.
     */
    private static RdmaConfigBuilder emulatedVerbs(RdmaConfigBuilder config) {
        config.transport(Transport.VERBS);
        if (config.build().timeout() == RdmaConfig.builder().build().timeout()) {
            config.timeout(18);
        }
        return config;
    }

    /**
     * The RDMA_* variables a peer JVM of this fabric opens its context from (RdmaConfig.fromEnvironment):
     * the transport, and over verbs the device of its side and the emulated guest's ACK timeout, as
     * {@link #serverConfig} and {@link #clientConfig} choose them.
     */
    public Map<String, String> processEnvironment(boolean serverSide) {
        Map<String, String> env = new HashMap<>(Map.of("RDMA_TRANSPORT", name().toLowerCase()));
        if (this == VERBS) {
            env.put("RDMA_DEVICE", serverSide ? RxeEnvironment.serverDevice() : RxeEnvironment.clientDevice());
            env.put("RDMA_TIMEOUT", "18"); // emulatedVerbs
        }
        return env;
    }

    /** A fresh address for a server of this fabric (over TCP and shared memory: a port free right now). */
    public InetSocketAddress nextAddress() {
        synchronized (Fabric.class) {
            if (this == VERBS) {
                return new InetSocketAddress(RxeEnvironment.ADDRESS_0, nextPort++);
            }
            for (;;) {  // TCP and SHM share the range
                InetSocketAddress candidate = new InetSocketAddress("127.0.0.1", nextTcpPort++);
                try (ServerSocket probe = new ServerSocket()) {
                    probe.setReuseAddress(true);  // as the library's listeners: a port in TIME_WAIT is free
                    probe.bind(candidate);
                    return candidate;
                } catch (IOException inUse) {
                    // taken by another process: the next one
                }
            }
        }
    }

    /** The address a client context binds to, so that its connections leave from its own device. */
    public InetAddress clientAddress() {
        try {
            return InetAddress.getByName(this != VERBS ? "127.0.0.1"
                    : RxeEnvironment.topology().equals("two") ? RxeEnvironment.ADDRESS_1 : RxeEnvironment.ADDRESS_0);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Receiver-not-ready NAKs so far (rxe's hw_counters), which credits must prevent; TCP and shared
     * memory have no such thing: a receiver that cannot take a frame leaves it in the socket or ring.
     */
    public long receiverNotReadyCount() throws IOException {
        return this == VERBS ? MessagingContract.rnrCount() : 0;
    }
}
