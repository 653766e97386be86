package org.jrdma.bench;

import java.util.Arrays;

/** Command-line entry of jrdma-bench.jar. Today: {@code devices} (the default), listing the RDMA devices. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws Exception {
        int status;
        try {
            status = run(args);
        } catch (IllegalArgumentException | org.jrdma.ConfigurationException | java.net.UnknownHostException e) {
            // Bad input or configuration (no device, a wrong RDMA_* value): one line, not a stack trace.
            System.err.println("jrdma-bench: " + e.getMessage());
            status = 2;
        } catch (org.jrdma.RdmaException e) {
            System.err.println("jrdma-bench: " + e.getMessage());
            status = 1;
        }
        System.exit(status);
    }

    static int run(String[] args) throws Exception {
        String command = args.length == 0 ? "devices" : args[0];
        String[] rest = Arrays.copyOfRange(args, Math.min(1, args.length), args.length);
        int status;
        switch (command) {
            case "devices":
                status = DevicesCommand.run(rest, System.out);
                break;
            case "bench":
                status = BenchCommand.run(rest, System.out);
                break;
            case "compare-report":
                status = CompareReport.run(rest, System.out);
                break;
            case "jmh":
                org.openjdk.jmh.Main.main(rest);
                status = 0;
                break;
            case "pingpong":
                status = PingPongCommand.run(rest, System.out);
                break;
            case "alloc":
                status = AllocCommand.run(rest, System.out);
                break;
            case "keyed":
                status = KeyedCommand.run(rest, System.out);
                break;
            case "kv":
                status = KvCommand.run(rest, System.out);
                break;
            case "-h":
            case "--help":
                System.out.println("usage: java -jar jrdma-bench.jar [devices | pingpong [server-ip] [client-ip] | keyed [server-ip] [client-ip] | kv [server-ip] [client-ip] | alloc [iterations] | bench [options]]");
                System.out.println(BenchOptions.usage());
                status = 0;
                break;
            default:
                System.err.println("unknown command '" + command + "'; try --help");
                status = 2;
        }
        return status;
    }
}
