package org.jrdma.rxe.contract;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The process's resident memory per mapping (/proc/self/smaps), so that a test whose memory did not
 * come back can say where it stayed: the main malloc heap ([heap]), a thread's malloc arena (an
 * anonymous mapping of up to 64 MiB), the Java heap, the code cache, a channel's block.
 */
final class ResidentMappings {
    /** The first line of a mapping in smaps: its address range (as bench's ProcessMemory reads it). */
    private static final Pattern MAPPING = Pattern.compile("[0-9a-f]+-[0-9a-f]+ ");
    private final Map<String, Long> residentKib;

    private ResidentMappings(Map<String, Long> residentKib) {
        this.residentKib = residentKib;
    }

    static ResidentMappings now() throws IOException {
        Map<String, Long> resident = new HashMap<>();
        String mapping = null;
        for (String line : Files.readAllLines(Path.of("/proc/self/smaps"))) {
            if (MAPPING.matcher(line).lookingAt()) {
                mapping = describe(line);
            } else if (mapping != null && line.startsWith("Rss:")) {
                resident.merge(mapping, Long.parseLong(line.replaceAll("\\D", "")), Long::sum);
            }
        }
        return new ResidentMappings(resident);
    }

    /** "start-end perms name (size KiB)" of a smaps header line. */
    private static String describe(String header) {
        String[] fields = header.trim().split("\\s+", 6);
        String[] range = fields[0].split("-");
        long kib = (Long.parseUnsignedLong(range[1], 16) - Long.parseUnsignedLong(range[0], 16)) >> 10;
        String name = fields.length > 5 ? fields[5] : "anonymous";
        return fields[0] + " " + fields[1] + " " + name + " (" + kib + " KiB)";
    }

    /** The {@code top} mappings that grew most since {@code before}, as "mapping +KiB" joined by "; ". */
    String grownSince(ResidentMappings before, int top) {
        List<Map.Entry<String, Long>> grown = residentKib.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), e.getValue() - before.residentKib.getOrDefault(e.getKey(), 0L)))
                .filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(top)
                .collect(Collectors.toList());
        return grown.stream().map(e -> e.getKey() + " +" + e.getValue() + " KiB").collect(Collectors.joining("; "));
    }
}
