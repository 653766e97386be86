package org.jrdma.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * jrdma's jars work on the module path: each names a legal module (Automatic-Module-Name), a JVM
 * with them on --module-path starts, finds the implementation through ServiceLoader and loads the
 * native library from the native jar.
 */
class ModulePathTest {
    /** The jar the reactor built for a sibling module (not its -sources or -javadoc jar). */
    private static Path jar(String module) throws IOException {
        try (Stream<Path> files = Files.list(Path.of("..", module, "target"))) {
            return files.filter(f -> f.getFileName().toString().matches("jrdma-[a-z]+-[0-9][^-]*(-SNAPSHOT)?\\.jar"))
                    .findFirst().orElseThrow(() -> new AssertionError("no jar built in " + module + "/target"));
        }
    }

    @Test
    void everyJarNamesALegalModuleAndTheLibraryLoadsFromTheModulePath() throws Exception {
        List<String> modulePath = new ArrayList<>();
        for (String[] m : new String[][] {{"java-api", "org.jrdma"}, {"java-impl", "org.jrdma.impl"},
                {"native", "org.jrdma.nativelib"}}) {
            Path jar = jar(m[0]);
            try (JarFile file = new JarFile(jar.toFile())) {
                assertEquals(m[1], file.getManifest().getMainAttributes().getValue("Automatic-Module-Name"), jar.toString());
            }
            modulePath.add(jar.toString());
        }
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (entry.contains("hawtjni-runtime")) {
                modulePath.add(entry);
            }
        }
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(javaBin, "--module-path", String.join(File.pathSeparator, modulePath),
                "--add-modules", "ALL-MODULE-PATH", "-cp", Path.of("target", "test-classes").toString(),
                ModulePathMain.class.getName()).redirectErrorStream(true).start();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the JVM did not finish");
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), output);
        assertTrue(output.contains("api module: org.jrdma"), output);
        assertTrue(output.contains("available: true cause: null"), output);
        assertTrue(output.contains("version: "), output);
    }
}
