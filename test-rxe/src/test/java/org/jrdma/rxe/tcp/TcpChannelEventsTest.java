package org.jrdma.rxe.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.jrdma.RdmaChannel;
import org.jrdma.rxe.contract.Endpoints;
import org.jrdma.rxe.contract.Fabric;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** JFR's ChannelClosed over TCP: one per channel that opened, none for a connect that never did. */
@Tag("tcp")
class TcpChannelEventsTest {
    @Test
    void aRefusedConnectRecordsNoCloseAndAnApplicationCloseRecordsAnEmptyCause() throws Exception {
        Path jfr = Files.createTempFile("channel-events", ".jfr");
        try (Endpoints e = new Endpoints(Fabric.TCP); Recording recording = new Recording()) {
            recording.enable("org.jrdma.ChannelClosed");
            recording.start();
            InetSocketAddress nobody = e.address(); // free: nobody listens there
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> e.client.connect(nobody, e.clientAddress, (ch, m) -> { }).get(30, TimeUnit.SECONDS));
            InetSocketAddress address = e.address();
            e.listen(address, (ch, m) -> { });
            RdmaChannel channel = e.connect(address, (ch, m) -> { });
            channel.close();
            channel.closeFuture().get(30, TimeUnit.SECONDS);
            recording.stop();
            recording.dump(jfr);
            List<RecordedEvent> closes = RecordingFile.readAllEvents(jfr).stream()
                    .filter(ev -> ev.getEventType().getName().equals("org.jrdma.ChannelClosed"))
                    .filter(ev -> ev.getString("peer").endsWith(":" + nobody.getPort())
                            || ev.getString("peer").endsWith(":" + address.getPort()))
                    .toList();
            assertEquals(1, closes.size(), "the refused connect (" + refused.getCause() + ") records nothing: " + closes);
            assertEquals("", closes.get(0).getString("cause"), "closed by the application");
        } finally {
            Files.deleteIfExists(jfr);
        }
    }
}
