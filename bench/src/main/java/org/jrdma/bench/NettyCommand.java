package org.jrdma.bench;

import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code netty}: Netty and gRPC-java over jrdma-netty beside Netty's own NIO and epoll transports, in one
 * run with the transports interleaved round by round (docs/performance.md, docs/netty.md): raw Netty
 * echo of 64 B (round trip p50/p99) and a 1 MiB stream (MiB/s), gRPC unary 64 B (round trip p50/p99 from
 * a blocking stub) and a client stream of 1 MiB messages (MiB/s). Each row is the median of the rounds.
 */
@Command(name = "netty", mixinStandardHelpOptions = true,
        description = "Netty echo and gRPC over jrdma-netty next to Netty NIO and epoll (median of interleaved rounds)")
final class NettyCommand implements Callable<Integer> {
    @Option(names = "--transports", split = ",", paramLabel = "T",
            description = "transports to compare: nio, epoll, tcp, shm, verbs (default: nio,epoll,tcp,shm)")
    List<NettyTransports> transports = List.of(NettyTransports.NIO, NettyTransports.EPOLL, NettyTransports.TCP,
            NettyTransports.SHM);

    @Option(names = "--rounds", paramLabel = "N", description = "interleaved rounds (default 3)")
    int rounds = 3;

    @Option(names = "--iters", paramLabel = "N", description = "round trips per latency case (default 2000)")
    int iterations = 2000;

    @Option(names = "--stream-count", paramLabel = "N", description = "1 MiB messages per stream case (default 256)")
    int streamCount = 256;

    @Option(names = "--address", paramLabel = "IP", description = "the servers' address (default 127.0.0.1; over verbs: the device's)")
    String address = "127.0.0.1";

    @Option(names = "--server-device", paramLabel = "NAME", description = "over verbs: the servers' device")
    String serverDevice;

    @Option(names = "--client-device", paramLabel = "NAME", description = "over verbs: the clients' device")
    String clientDevice;

    @Option(names = "--client-address", paramLabel = "IP",
            description = "the address clients connect from (default: the route's choice; in the VM 10.77.0.2 sends TCP over the veth pair)")
    String clientAddress;

    private static final String[] COLUMNS = {"echo p50", "echo p99", "stream MiB/s", "grpc p50", "grpc p99", "grpc MiB/s"};

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        NettyEndpoints endpoints = new NettyEndpoints(new InetSocketAddress(InetAddress.getByName(address), 0),
                clientAddress == null ? null : InetAddress.getByName(clientAddress), serverDevice, clientDevice);
        Map<NettyTransports, List<double[]>> results = new EnumMap<>(NettyTransports.class);
        for (int round = 0; round < rounds; round++) {
            for (NettyTransports transport : transports) {
                String unavailable = transport.unavailable();
                if (unavailable != null) {
                    if (round == 0) {
                        out.println(transport.title + ": skipped, " + unavailable);
                    }
                    continue;
                }
                double[] row = measure(transport, endpoints);
                results.computeIfAbsent(transport, t -> new ArrayList<>()).add(row);
                out.printf(Locale.ROOT, "round %d %-18s %s%n", round + 1, transport.title, format(row));
            }
        }
        out.printf(Locale.ROOT, "%nmedian of %d rounds; 64 B round trips in us (p50, p99), 1 MiB streams in MiB/s%n", rounds);
        out.printf(Locale.ROOT, "%-18s %s%n", "transport", String.join(" ", Arrays.stream(COLUMNS)
                .map(c -> String.format(Locale.ROOT, "%12s", c)).toArray(String[]::new)));
        for (Map.Entry<NettyTransports, List<double[]>> e : results.entrySet()) {
            out.printf(Locale.ROOT, "%-18s %s%n", e.getKey().title, format(median(e.getValue())));
        }
        return 0;
    }

    private double[] measure(NettyTransports transport, NettyEndpoints endpoints) throws Exception {
        Histogram echo = NettyEcho.pingPong(transport, endpoints, 64, iterations / 4, iterations);
        double stream = NettyEcho.stream(transport, endpoints, 1 << 20, streamCount);
        try (GrpcBench grpc = new GrpcBench(transport, endpoints)) {
            Histogram unary = grpc.unary(64, iterations / 4, iterations);
            double grpcStream = grpc.stream(1 << 20, streamCount);
            return new double[] {micros(echo, 50), micros(echo, 99), stream, micros(unary, 50), micros(unary, 99), grpcStream};
        }
    }

    private static double micros(Histogram tenths, double percentile) {
        return tenths.getValueAtPercentile(percentile) / 10.0;
    }

    private static double[] median(List<double[]> rows) {
        double[] median = new double[COLUMNS.length];
        for (int c = 0; c < median.length; c++) {
            final int column = c;
            double[] values = rows.stream().mapToDouble(r -> r[column]).sorted().toArray();
            median[c] = values[values.length / 2];
        }
        return median;
    }

    private static String format(double[] row) {
        StringBuilder text = new StringBuilder();
        for (double v : row) {
            text.append(String.format(Locale.ROOT, " %12.1f", v));
        }
        return text.substring(1);
    }
}
