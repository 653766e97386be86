package org.jrdma.impl;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.jrdma.AdmissionPolicy;
import org.jrdma.ChannelHandler;
import org.jrdma.ConnectionRequest;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaServer;

/**
 * A listening rdma_cm id; accepted channels get the server's handler. With an admission policy, each
 * connection request waits natively (nothing created for it) until the policy decides here.
 */
final class JniServer extends NativeResource implements RdmaServer {
    private static final System.Logger LOG = System.getLogger("org.jrdma.server");
    private final JniContext context;
    final long listener;
    private final InetSocketAddress localAddress;
    final ChannelHandler handler;
    final RdmaConfig config;
    private final AdmissionPolicy policy; // null: everyone who passes the handshake and the limits

    JniServer(JniContext context, InetSocketAddress requested, ChannelHandler handler, AdmissionPolicy policy) {
        this.context = context;
        this.handler = handler;
        this.policy = policy;
        this.config = context.config();
        this.listener = context.channelSettings().listen(context.handle(), requested.getAddress().getHostAddress(),
                requested.getPort(), 128, policy != null);
        int port = NativeChannel.listenerPort0(context.handle(), listener);
        this.localAddress = new InetSocketAddress(requested.getAddress(), port);
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public void close() {
        markClosed();
    }

    /**
     * A request waits for the policy of {@code server} (null: closed meanwhile). Decided at once on the
     * loop thread: the request's native state lives only while its record is handled.
     */
    static void decide(JniContext context, JniServer server, long request) {
        AdmissionPolicy.Admission admission;
        try {
            if (server == null || server.isClosedFlag() || server.policy == null) {
                admission = AdmissionPolicy.Admission.reject(-1, "the server is closing");
            } else {
                InetSocketAddress address = NativeAddresses.parse(NativeChannel.admissionPeer0(context.handle(), request));
                admission = server.policy.decide(new ConnectionRequest(address,
                        NativeChannel.admissionData0(context.handle(), request)));
                if (admission == null) {
                    throw new NullPointerException("AdmissionPolicy.decide returned null");
                }
            }
        } catch (Throwable t) {
            LOG.log(Level.WARNING, "the admission policy of " + server + " threw; the connection is refused", t);
            admission = AdmissionPolicy.Admission.reject(-1, "the server's admission policy failed");
        }
        byte[] text = admission.reason().getBytes(StandardCharsets.UTF_8);
        NativeChannel.decide0(context.handle(), request, admission.accepted(), admission.code(), text);
    }

    @Override
    protected String describe() {
        return "server on " + localAddress;
    }

    @Override
    protected void free() {
        context.registry().unregisterServer(this);
        try {
            NativeChannel.closeListener0(context.handle(), listener);
        } finally {
            context.childFreed(this);
        }
    }
}
