package org.jrdma.examples;

import java.net.InetSocketAddress;
import java.util.Arrays;

/**
 * The examples' entry point: {@code java -jar jrdma-examples.jar <example> <arguments>}. Each process
 * opens its context from the environment ({@code RDMA_TRANSPORT}, {@code RDMA_DEVICE}...), so the same
 * commands run over TCP or shared memory on a laptop and over RDMA where there is a device.
 */
public final class Examples {
    private Examples() {
    }

    /**
     * Runs one example.
     *
     * @param args the example's name, then its arguments
     * @throws Exception what the example throws
     */
    public static void main(String[] args) throws Exception {
        String[] rest = args.length > 0 ? Arrays.copyOfRange(args, 1, args.length) : new String[0];
        int status = switch (args.length > 0 ? args[0] : "") {
            case "echo-server" -> EchoExample.server(rest);
            case "echo-client" -> EchoExample.client(rest);
            case "file-receiver" -> FileExample.receiver(rest);
            case "file-sender" -> FileExample.sender(rest);
            case "memory-server" -> RemoteMemoryExample.server(rest);
            case "memory-client" -> RemoteMemoryExample.client(rest);
            case "kv-server" -> KvExample.server(rest);
            case "kv-worker" -> KvExample.worker(rest);
            case "kv-node" -> KvExample.node(rest);
            case "keyed-producer" -> KeyedExample.producer(rest);
            case "keyed-consumer" -> KeyedExample.consumer(rest);
            case "simple-server" -> SimpleExample.server(rest);
            case "simple-client" -> SimpleExample.client(rest);
            case "grpc-server" -> GrpcExample.server(rest);
            case "grpc-client" -> GrpcExample.client(rest);
            default -> usage();
        };
        System.exit(status); // a command line: its status is what the scripts and ExamplesTest check
    }

    private static int usage() {
        System.err.println("""
                usage: java -jar jrdma-examples.jar <example> <arguments>
                  echo-server HOST:PORT                    answers each message with its bytes, until killed
                  echo-client HOST:PORT COUNT              COUNT round trips of 64 B, each checked
                  file-receiver HOST:PORT DIR              writes each file sent to it into DIR, until killed
                  file-sender HOST:PORT FILE               sends FILE by rendezvous (16 MiB messages)
                  memory-server HOST:PORT                  exposes a greeting (token) and its memory agent, until killed
                  memory-client HOST:PORT                  one-sided read, agent allocation, write, read, fetch-and-add
                  kv-server HOST:PORT                      a push/pull server (float32 sums), until killed
                  kv-worker RANK WORKERS HOST:PORT...      pushes, waits for WORKERS workers, pulls and checks the sums
                  kv-node                                  a scheduler, server or worker of a job, from RDMA_KV_* (docs/kv.md)
                  keyed-producer HOST:PORT STEPS           publishes "weights" for steps 1..STEPS, until killed
                  keyed-consumer HOST:PORT STEPS           fetches them (checksummed) and checks the bytes
                  simple-server HOST:PORT                  answers requests by head (ps-lite's SimpleApp), until killed
                  simple-client HOST:PORT                  asks it, checks the answers and shows a refusal
                  grpc-server HOST:PORT                    a gRPC-java greeter over jrdma-netty, until killed
                  grpc-client HOST:PORT NAME               calls it (unary, then a stream of 1000) and checks the answers
                The transport comes from RDMA_TRANSPORT (auto: RDMA where there is a device, else TCP or
                shared memory); HOST is an address of the server's device or host.""");
        return 2;
    }

    /** HOST:PORT (the port after the last colon). */
    static InetSocketAddress address(String text) {
        int colon = text.lastIndexOf(':');
        if (colon < 1) {
            throw new IllegalArgumentException("not HOST:PORT: " + text);
        }
        return new InetSocketAddress(text.substring(0, colon), Integer.parseInt(text.substring(colon + 1)));
    }
}
