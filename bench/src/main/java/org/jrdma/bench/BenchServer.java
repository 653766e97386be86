package org.jrdma.bench;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.jrdma.Access;
import org.jrdma.ChannelHandler;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaMessage;
import org.jrdma.RdmaServer;
import org.jrdma.RegisteredBuffer;
import org.jrdma.RemoteBuffer;
import org.jrdma.Transport;

/**
 * The passive side of the benchmarks: for each channel it reads the control message, exposes a
 * buffer, and then echoes (send_lat), counts (send_bw), writes back what it sees (write_lat) or
 * stays passive (read and write bandwidth, read latency).
 */
final class BenchServer implements ChannelHandler, AutoCloseable {
    private final RdmaContext context;
    private final RdmaServer server;
    private final Map<RdmaChannel, Session> sessions = new ConcurrentHashMap<>();
    private final Queue<WriteBack> writeBacks = new ConcurrentLinkedQueue<>();
    private final PrintStream log;

    BenchServer(RdmaContext context, InetSocketAddress address, PrintStream log) {
        this.context = context;
        this.log = log;
        this.server = context.listen(address, this);
    }

    InetSocketAddress address() {
        return server.localAddress();
    }

    private final class Session {
        final Control control;
        final RegisteredBuffer exposed;
        final RegisteredBuffer reply;
        int received;

        Session(Control control) {
            this.control = control;
            this.exposed = context.allocate(Math.max(control.size(), 64), Access.REMOTE_READ, Access.REMOTE_WRITE);
            this.reply = context.allocate(Math.max(control.size(), 64));
        }
    }

    @Override
    public void onMessage(RdmaChannel channel, RdmaMessage message) {
        Session session = sessions.get(channel);
        if (session == null) {
            Control control = Control.readFrom(message.payload());
            Session created = new Session(control);
            sessions.put(channel, created);
            created.exposed.remote().writeTo(created.reply.buffer());
            channel.send(created.reply, 0, RemoteBuffer.BYTES);
            if (BenchOptions.ALL_TESTS.get(control.test()).equals("write_lat")) {
                WriteBack writeBack = new WriteBack(channel, created);
                if (Driving.callerDriven(context)) {
                    writeBacks.add(writeBack); // the driving thread echoes between its passes: one thread, as perftest
                } else {
                    Thread writer = new Thread(writeBack::run, "bench-write-back");
                    writer.setDaemon(true);
                    writer.start();
                }
            }
            return;
        }
        switch (BenchOptions.ALL_TESTS.get(session.control.test())) {
            case "send_lat":
                channel.send(session.reply, 0, message.length());
                break;
            case "send_bw":
                if (++session.received == session.control.iterations()) {
                    channel.send(session.reply, 0, 1); // tells the client that everything arrived
                }
                break;
            default:
                break;
        }
    }

    /**
     * Caller-driven: one look at every write_lat session, run by the thread that drives the context
     * between its passes (Driving.inBackground), so that each side is one thread, as perftest's.
     */
    void pass() {
        writeBacks.removeIf(writeBack -> !writeBack.step());
    }

    /** write_lat: wait for iteration i to land in our buffer, then write i into the client's. */
    private final class WriteBack {
        private final RdmaChannel channel;
        private final Session session;
        private final int last;
        private final int length;
        private final RemoteBuffer client;
        private int next = 1;

        WriteBack(RdmaChannel channel, Session session) {
            this.channel = channel;
            this.session = session;
            this.length = Math.max(session.control.size(), 8);
            this.last = length - 8;
            this.client = session.control.clientBuffer();
        }

        /** A thread of its own: waits for each iteration in turn. */
        void run() {
            for (; next <= session.control.iterations(); next++) {
                // The peer's WRITE is placed by the server's loop (its thread): this one yields to it.
                if (!MemoryPoller.await(session.exposed.buffer(), last, next, System.nanoTime() + TimeUnit.SECONDS.toNanos(30),
                        context.transport() != Transport.VERBS ? Thread::yield : null)) {
                    log.println("write_lat server: iteration " + next + " never arrived");
                    return;
                }
                echo();
            }
        }

        /** One look without waiting; false once every iteration is echoed. */
        boolean step() {
            if (MemoryPoller.holds(session.exposed.buffer(), last, next)) {
                echo();
                next++;
            }
            return next <= session.control.iterations();
        }

        private void echo() {
            MemoryPoller.put(session.reply.buffer(), last, next);
            channel.write(session.reply, 0, client, 0, length);
        }
    }

    @Override
    public void onClose(RdmaChannel channel, Throwable cause) {
        writeBacks.removeIf(writeBack -> writeBack.channel == channel);
        Session session = sessions.remove(channel);
        if (session != null) {
            session.exposed.close();
            session.reply.close();
        }
    }

    @Override
    public void close() {
        server.close();
    }
}
