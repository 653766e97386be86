package org.jrdma.examples;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaServer;
import org.jrdma.RegisteredBuffer;
import org.jrdma.keyed.Fetched;
import org.jrdma.keyed.KeyedChannel;
import org.jrdma.keyed.KeyedOptions;
import org.jrdma.keyed.KeyedStore;
import org.jrdma.keyed.TransferKey;

/**
 * TensorFlow's tensor exchange: a producer publishes a tensor per step, a consumer fetches each one by
 * name and step straight into its own memory, with a checksum, and checks the bytes.
 */
final class KeyedExample {
    static final int BYTES = 1 << 20;
    static final byte[] METADATA = "f32[512,512]".getBytes(StandardCharsets.US_ASCII);

    private KeyedExample() {
    }

    /** The tensor of a step: bytes a consumer can check without having seen the producer's. */
    static byte expected(int i, long step) {
        return (byte) (i * 31 + step);
    }

    /** keyed-producer HOST:PORT STEPS: publishes, then serves until the process is killed. */
    static int producer(String[] args) throws InterruptedException {
        if (args.length != 2) {
            System.err.println("usage: keyed-producer HOST:PORT STEPS");
            return 2;
        }
        int steps = Integer.parseInt(args[1]);
        RdmaContext context = Rdma.open(RdmaConfig.fromEnvironment());
        KeyedStore store = new KeyedStore();
        RdmaServer server = context.listen(Examples.address(args[0]),
                KeyedChannel.accepting(context, store, KeyedOptions.DEFAULTS, channel -> { }));
        for (long step = 1; step <= steps; step++) {
            RegisteredBuffer tensor = context.allocate(BYTES);
            ByteBuffer bytes = tensor.buffer();
            for (int i = 0; i < BYTES; i++) {
                bytes.put(i, expected(i, step));
            }
            store.publish(new TransferKey("weights", step), tensor, 0, BYTES, METADATA);
        }
        System.out.println("keyed-producer publishing weights for steps 1.." + steps + " on " + server.localAddress()
                + " over " + context.transport());
        Thread.currentThread().join();
        return 0;
    }

    /** keyed-consumer HOST:PORT STEPS: fetches each step's tensor (checksummed) and checks it. */
    static int consumer(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: keyed-consumer HOST:PORT STEPS");
            return 2;
        }
        int steps = Integer.parseInt(args[1]);
        try (RdmaContext context = Rdma.open(RdmaConfig.fromEnvironment())) {
            RdmaChannel channel = context.connect(Examples.address(args[0]), (ch, m) -> { }).get(30, TimeUnit.SECONDS);
            KeyedChannel keyed = KeyedChannel.attach(context, channel, null, KeyedOptions.DEFAULTS.withDataValidation(true));
            RegisteredBuffer destination = context.allocate(BYTES);
            for (long step = 1; step <= steps; step++) {
                Fetched got = keyed.fetch(new TransferKey("weights", step), destination).get(60, TimeUnit.SECONDS);
                ByteBuffer bytes = destination.buffer();
                for (int i = 0; i < got.length(); i++) {
                    if (bytes.get(i) != expected(i, step)) {
                        System.out.println("keyed-consumer: byte " + i + " of step " + step + " is wrong");
                        return 1;
                    }
                }
                System.out.println("keyed-consumer: step " + step + ": " + got.length() + " bytes, "
                        + new String(got.metadata(), StandardCharsets.US_ASCII) + ", CRC-32C checked, over " + context.transport());
            }
            keyed.close();
            return 0;
        }
    }
}
