package org.jrdma.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A fresh JVM without jrdma-native on its class path: {@code Rdma.unavailabilityCause()} names the
 * missing jar and the remedy (the explanation used to be lost in a NullPointerException of the
 * loader's static initialisation, seen only in a JVM where the load really fails).
 */
class WithoutNativeJarTest {
    @Test
    void theCauseNamesTheMissingJarAndTheRemedy() throws Exception {
        List<String> all = Arrays.asList(System.getProperty("java.class.path").split(File.pathSeparator));
        List<String> withoutNative = all.stream().filter(entry -> !isNativeJar(entry)).collect(Collectors.toList());
        assertNotEquals(all.size(), withoutNative.size(), "jrdma-native is on this class path: " + all);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-cp", String.join(File.pathSeparator, withoutNative),
                WithoutNativeJarMain.class.getName()).redirectErrorStream(true).start();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the JVM did not finish");
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), output);
        assertTrue(output.contains("available=false"), output);
        assertFalse(output.contains("NullPointerException") || output.contains(": null"), output);
        assertTrue(output.contains("the jrdma-native jar (META-INF/native/linux64/libjrdma.so) must be on the class path"),
                output);
    }

    /** The native module: its jar, or its classes directory in a reactor build. */
    private static boolean isNativeJar(String entry) {
        Path path = Path.of(entry);
        String name = path.getFileName() == null ? "" : path.getFileName().toString();
        return name.startsWith("jrdma-native") || entry.replace('\\', '/').contains("/native/target/");
    }
}
