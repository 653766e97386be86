package org.jrdma.impl;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jrdma.Access;
import org.jrdma.ConfigurationException;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaServer;
import org.jrdma.RegisteredBuffer;
import org.jrdma.RemoteBuffer;
import org.jrdma.Transport;

/**
 * Run by {@link WithoutRdmaCoreTest} in a JVM that cannot see libibverbs and librdmacm: prints whether
 * the library loaded, what listing devices and opening a verbs context say, and whether the default
 * configuration opens a working context (a message echoed and a one-sided write between two contexts),
 * and what a pre-shared key says without libcrypto.
 */
public final class WithoutRdmaCoreMain {
    private WithoutRdmaCoreMain() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("available=" + Rdma.isAvailable() + " cause=" + Rdma.unavailabilityCause());
        System.out.println("version=" + Rdma.libraryVersion());
        try {
            System.out.println("devices=" + Rdma.devices());
        } catch (ConfigurationException e) {
            System.out.println("devices failed: " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        try {
            Rdma.open(RdmaConfig.builder().transport(Transport.VERBS).build()).close();
            System.out.println("verbs open worked");
        } catch (ConfigurationException e) {
            System.out.println("verbs open failed: " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        try (RdmaContext server = Rdma.open(); RdmaContext client = Rdma.open()) {
            System.out.println("default open: " + server.transport());
            RegisteredBuffer target = server.allocate(64, Access.REMOTE_WRITE);
            CompletableFuture<String> echoed = new CompletableFuture<>();
            RdmaServer listening = server.listen(new InetSocketAddress("127.0.0.1", 0), (channel, message) -> {
                RegisteredBuffer reply = server.allocate(64);
                reply.buffer().put(message.payload());
                channel.send(reply, 0, message.length()).whenComplete((v, e) -> reply.close());
            });
            int port = listening.localAddress().getPort();
            RdmaChannel channel = client.connect(new InetSocketAddress("127.0.0.1", port), (ch, m) -> {
                byte[] bytes = new byte[m.length()];
                m.payload().get(bytes);
                echoed.complete(new String(bytes, StandardCharsets.US_ASCII));
            }).get(30, TimeUnit.SECONDS);
            RegisteredBuffer out = client.allocate(64);
            out.buffer().put("over TCP".getBytes(StandardCharsets.US_ASCII));
            channel.send(out, 0, 8).get(30, TimeUnit.SECONDS);
            System.out.println("echo: " + echoed.get(30, TimeUnit.SECONDS));
            RemoteBuffer remote = target.remote();
            channel.write(out, 0, remote, 0, 8).get(30, TimeUnit.SECONDS);
            byte[] written = new byte[8];
            target.buffer().get(0, written);
            System.out.println("written: " + new String(written, StandardCharsets.US_ASCII));
        }
        // libcrypto is hidden too: a pre-shared key is refused when configured, with what to install.
        byte[] key = "a key of 16 bytes".getBytes(StandardCharsets.US_ASCII);
        try (RdmaContext keyed = Rdma.open(RdmaConfig.builder().transport(Transport.TCP).preSharedKey(key).build())) {
            keyed.listen(new InetSocketAddress("127.0.0.1", 0), (channel, message) -> { });
            System.out.println("listen with a key worked");
        } catch (ConfigurationException e) {
            System.out.println("listen with a key failed: " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }
}
