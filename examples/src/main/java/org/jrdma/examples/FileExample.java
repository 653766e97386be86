package org.jrdma.examples;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.jrdma.ChannelHandler;
import org.jrdma.Rdma;
import org.jrdma.RdmaChannel;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaMessage;
import org.jrdma.RdmaServer;
import org.jrdma.RegisteredBuffer;

/**
 * A large file by rendezvous: the sender sends a header (name and size), then the file in messages of
 * up to 16 MiB from one registered buffer — each large message is read by the receiver straight out of
 * the sender's memory. The receiver keeps each message (retain) until a writer thread has put it on
 * disk, then gives it back (release); both print the file's SHA-256.
 */
final class FileExample {
    static final int CHUNK = 16 << 20;

    private FileExample() {
    }

    /** file-receiver HOST:PORT DIR: writes each file sent to it into DIR, until the process is killed. */
    static int receiver(String[] args) throws InterruptedException {
        if (args.length != 2) {
            System.err.println("usage: file-receiver HOST:PORT DIR");
            return 2;
        }
        Path directory = Path.of(args[1]);
        RdmaContext context = Rdma.open(RdmaConfig.fromEnvironment());
        ExecutorService writer = Executors.newSingleThreadExecutor(); // the loop must not block on the disk
        RdmaServer server = context.listen(Examples.address(args[0]), new ChannelHandler() {
            private final Map<RdmaChannel, Incoming> incoming = new HashMap<>(); // the event loop's thread only

            @Override
            public void onMessage(RdmaChannel channel, RdmaMessage message) {
                Incoming file = incoming.get(channel);
                if (file == null) { // a header: the next messages are this file's bytes
                    file = new Incoming(directory, new String(bytes(message), StandardCharsets.UTF_8));
                    if (file.size > 0) {
                        incoming.put(channel, file);
                    } else {
                        writer.execute(file::writeEmpty);
                    }
                    return;
                }
                if (file.countIsLast(message.length())) {
                    incoming.remove(channel); // the next message is another file's header
                }
                Incoming target = file;
                message.retain(); // valid after this call returns, until release()
                writer.execute(() -> {
                    try {
                        target.write(message);
                    } finally {
                        message.release();
                    }
                });
            }

            @Override
            public void onClose(RdmaChannel channel, Throwable cause) {
                incoming.remove(channel);
            }
        });
        System.out.println("file-receiver listening on " + server.localAddress() + " over " + context.transport());
        Thread.currentThread().join();
        return 0;
    }

    /** file-sender HOST:PORT FILE: sends the file and waits until the receiver has every byte. */
    static int sender(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: file-sender HOST:PORT FILE");
            return 2;
        }
        Path path = Path.of(args[1]);
        long size = Files.size(path);
        MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
        try (RdmaContext context = Rdma.open(RdmaConfig.fromEnvironment());
             FileChannel file = FileChannel.open(path, StandardOpenOption.READ)) {
            RdmaChannel channel = context.connect(Examples.address(args[0]), (ch, message) -> { }).get(30, TimeUnit.SECONDS);
            RegisteredBuffer buffer = context.allocate((int) Math.max(1, Math.min(size, CHUNK)));
            byte[] header = (path.getFileName() + "\n" + size).getBytes(StandardCharsets.UTF_8);
            buffer.buffer().put(header);
            channel.send(buffer, 0, header.length).get(30, TimeUnit.SECONDS);
            long start = System.nanoTime();
            for (long sent = 0; sent < size;) {
                int length = (int) Math.min(CHUNK, size - sent);
                var bytes = buffer.buffer().limit(length);
                while (bytes.hasRemaining()) {
                    file.read(bytes, sent + bytes.position());
                }
                sha256.update(bytes.flip());
                channel.send(buffer, 0, length).get(120, TimeUnit.SECONDS); // done once the receiver has read it
                sent += length;
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("file-sender: %s, %d bytes in %.2f s (%.0f MiB/s) over %s, sha256 %s%n", path.getFileName(),
                    size, seconds, size / 1048576.0 / seconds, context.transport(), HexFormat.of().formatHex(sha256.digest()));
            channel.close();
            return 0;
        }
    }

    private static byte[] bytes(RdmaMessage message) {
        byte[] bytes = new byte[message.length()];
        message.payload().get(bytes);
        return bytes;
    }

    /** A file being received: its header's name and size, the bytes written so far (the writer thread). */
    private static final class Incoming {
        private final Path path;
        private final String name;
        private final long size;
        private final MessageDigest sha256;
        private long announced; // the event loop's thread
        private long written; // the writer thread

        Incoming(Path directory, String header) {
            String[] fields = header.split("\n", 2);
            this.name = Path.of(fields[0]).getFileName().toString(); // a name, never a path out of the directory
            this.path = directory.resolve(name);
            this.size = Long.parseLong(fields[1]);
            try {
                this.sha256 = MessageDigest.getInstance("SHA-256");
                Files.deleteIfExists(path);
            } catch (NoSuchAlgorithmException | IOException e) {
                throw new IllegalStateException(e);
            }
        }

        /** Counts a message of the file; {@return whether it is the last} */
        boolean countIsLast(int length) {
            announced += length;
            return announced >= size;
        }

        void writeEmpty() {
            try {
                Files.write(path, new byte[0]);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            System.out.println("file-receiver: " + name + ", 0 bytes, sha256 " + HexFormat.of().formatHex(sha256.digest()));
        }

        void write(RdmaMessage message) {
            try (FileChannel out = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.APPEND)) {
                var bytes = message.payload();
                sha256.update(bytes.duplicate());
                while (bytes.hasRemaining()) {
                    out.write(bytes);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            written += message.length();
            if (written == size) {
                System.out.println("file-receiver: " + name + ", " + size + " bytes, sha256 "
                        + HexFormat.of().formatHex(sha256.digest()));
            }
        }
    }
}
