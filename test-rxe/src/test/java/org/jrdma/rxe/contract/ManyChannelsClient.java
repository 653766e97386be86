package org.jrdma.rxe.contract;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RegisteredBuffer;

/**
 * The measuring side of {@link ManyChannelsContract}, a JVM of its own whose heap is fixed and touched
 * from the start (the contract starts it so), so that its resident memory changes only by what lies
 * outside the heap. Arguments: {@code SERVER_HOST SERVER_PORT LOCAL_HOST CHANNELS BOUND_BYTES}, the
 * transport from {@code RDMA_TRANSPORT} (and {@code RDMA_DEVICE}). Opens one channel and closes it
 * (what is made once per process is made then), takes the baseline, opens CHANNELS channels (at most
 * 256 connecting), sends a message on each and waits for every answer, closes them all, and waits (up
 * to 20 s each: loops close sockets and free memory after close() returned) until the open files are
 * back and the resident memory within BOUND_BYTES of the baseline. Prints "RESULT files BEFORE AFTER
 * resident BEFORE AFTER" (after "GREW ..." naming the mappings that grew most, when the memory stayed)
 * and exits 0, or "FAILED class: message" and exits 1.
 */
public final class ManyChannelsClient {
    private static final long WAIT_S = 300;

    private ManyChannelsClient() {
    }

    public static void main(String[] args) {
        try {
            InetSocketAddress server = new InetSocketAddress(args[0], Integer.parseInt(args[1]));
            InetAddress local = InetAddress.getByName(args[2]);
            int n = Integer.parseInt(args[3]);
            long bound = Long.parseLong(args[4]);
            var os = (com.sun.management.UnixOperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            if (os.getMaxFileDescriptorCount() < n + 200L) {
                throw new IllegalStateException(n + " channels need about " + (n + 200) + " descriptors; this process may"
                        + " open " + os.getMaxFileDescriptorCount() + " (raise the hard limit: ulimit -Hn)");
            }
            // Bounded by events, not by the default 5 s per connect: with 256 connects in flight on a loaded host the
            // peer's loop may accept one later than that (seen once in 10,000 over TCP); this test is about what comes back.
            RdmaConfig config = RdmaConfig.fromEnvironment().toBuilder().connectTimeoutMillis(120_000).build();
            try (RdmaContext context = Rdma.open(config)) {
                RegisteredBuffer request = context.allocate(64);
                connectCarryAndClose(context, server, local, request, 1);
                settle();
                int filesBefore = openFiles();
                Set<String> filesBeforeNamed = namedFiles();
                long residentBefore = resident();
                ResidentMappings mappingsBefore = ResidentMappings.now();
                connectCarryAndClose(context, server, local, request, n);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (openFiles() > filesBefore && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                settle();
                deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (resident() - residentBefore >= bound && System.nanoTime() < deadline) {
                    Thread.sleep(200);
                }
                Set<String> left = namedFiles();
                left.removeAll(filesBeforeNamed); // named in the result, to say what stayed open
                long residentAfter = resident();
                if (residentAfter - residentBefore >= bound) { // where it stayed, for the failure's message
                    System.out.println("GREW " + ResidentMappings.now().grownSince(mappingsBefore, 8));
                }
                System.out.println("RESULT files " + filesBefore + " " + openFiles() + " resident " + residentBefore + " "
                        + residentAfter + (left.isEmpty() ? "" : " new files " + left));
            }
        } catch (Throwable t) {
            System.out.println("FAILED " + t.getClass().getName() + ": " + t.getMessage());
            System.exit(1);
        }
        System.exit(0);
    }

    /** Opens n channels, sends one message on each and waits for every answer, then closes them all. */
    private static void connectCarryAndClose(RdmaContext context, InetSocketAddress server, InetAddress local,
                                             RegisteredBuffer request, int n) throws Exception {
        CountDownLatch answers = new CountDownLatch(n);
        Semaphore connecting = new Semaphore(256); // within the peer's maxPendingConnections (1024)
        List<CompletableFuture<RdmaChannel>> connects = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            if (!connecting.tryAcquire(WAIT_S, TimeUnit.SECONDS)) {
                throw new IllegalStateException("no connect completed in " + WAIT_S + " s");
            }
            CompletableFuture<RdmaChannel> connect = context.connect(server, local, (channel, m) -> answers.countDown());
            connect.whenComplete((channel, error) -> connecting.release());
            connects.add(connect);
        }
        List<RdmaChannel> channels = new ArrayList<>(n);
        try {
            for (CompletableFuture<RdmaChannel> connect : connects) {
                channels.add(connect.get(WAIT_S, TimeUnit.SECONDS));
            }
            for (RdmaChannel channel : channels) {
                channel.send(request, 0, 64);
            }
            if (!answers.await(WAIT_S, TimeUnit.SECONDS)) {
                throw new IllegalStateException((n - answers.getCount()) + " answers on " + n + " channels");
            }
        } finally {
            channels.forEach(RdmaChannel::close);
        }
        for (RdmaChannel channel : channels) {
            channel.closeFuture().get(WAIT_S, TimeUnit.SECONDS);
        }
    }

    /** Direct buffers whose owners are gone give their memory back once the collector ran. */
    private static void settle() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
    }

    /**
     * Open descriptors of the kinds channels hold: sockets, pipes, anonymous inodes (epoll, eventfd)
     * and memory files (rings). Files the class loader opens on first use (a jar) are not counted.
     */
    private static int openFiles() throws IOException {
        return (int) namedFiles().stream().filter(f -> {
            String target = f.substring(f.indexOf(" -> ") + 4);
            return target.startsWith("socket:") || target.startsWith("pipe:") || target.startsWith("anon_inode:")
                    || target.startsWith("/memfd:");
        }).count();
    }

    /** Each open descriptor as "fd -> target". */
    private static Set<String> namedFiles() throws IOException {
        Set<String> named = new TreeSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    named.add(fd.getFileName() + " -> " + Files.readSymbolicLink(fd));
                } catch (IOException gone) {
                    // closed while listing (the listing's own descriptor, among others)
                }
            }
        }
        return named;
    }

    private static long resident() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
            }
        }
        throw new IOException("no VmRSS in /proc/self/status");
    }
}
