package org.jrdma.impl;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The counters a device keeps for a port, as the kernel shows them in sysfs:
 * {@code /sys/class/infiniband/DEV/ports/N/counters} (the InfiniBand port counters: port_xmit_data,
 * port_rcv_errors, ...) and {@code .../hw_counters} (driver counters: rxe's sent_pkts, rdma_sends,
 * retry_exceeded_err, ...). Read when asked; a device without them gives an empty map.
 */
final class DeviceCounters {
    private static final Path SYSFS = Path.of("/sys/class/infiniband");

    private DeviceCounters() {
    }

    static Map<String, Long> read(String device, int port) {
        Map<String, Long> values = new TreeMap<>();
        Path portDir = SYSFS.resolve(device).resolve("ports").resolve(Integer.toString(port));
        readDirectory(portDir.resolve("counters"), "", values);
        readDirectory(portDir.resolve("hw_counters"), "hw_", values);
        return Collections.unmodifiableMap(values);
    }

    /** Every file of {@code dir} whose content is a whole number; a name already taken gets {@code prefix}. */
    private static void readDirectory(Path dir, String prefix, Map<String, Long> into) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> files = Files.list(dir)) {
            files.filter(Files::isRegularFile).forEach(file -> {
                String name = file.getFileName().toString();
                try {
                    long value = Long.parseLong(Files.readString(file).trim());
                    into.put(into.containsKey(name) ? prefix + name : name, value);
                } catch (IOException | NumberFormatException e) {
                    // not readable (some counters need privileges) or not a number (e.g. "N/A"): not a counter to show
                }
            });
        } catch (IOException e) {
            // the device went away: no counters
        }
    }
}
