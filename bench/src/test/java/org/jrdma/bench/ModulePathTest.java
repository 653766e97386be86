package org.jrdma.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import org.junit.jupiter.api.Assumptions;
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

    /** The module path of the API, implementation and native jars and hawtjni's runtime. */
    private static List<String> modulePath() throws IOException {
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
        return modulePath;
    }

    /** Runs {@link ModulePathMain} with jrdma on the module path; {@return its output} after checking it. */
    private static String runOnModulePath(Path javaHome, String... options) throws Exception {
        List<String> command = new ArrayList<>(List.of(javaHome.resolve("bin/java").toString()));
        command.addAll(List.of(options));
        command.addAll(List.of("--module-path", String.join(File.pathSeparator, modulePath()), "--add-modules",
                "ALL-MODULE-PATH", "-cp", Path.of("target", "test-classes").toString(), ModulePathMain.class.getName()));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the JVM did not finish");
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), output);
        assertTrue(output.contains("api module: org.jrdma"), output);
        assertTrue(output.contains("available: true cause: null"), output);
        assertTrue(output.contains("version: "), output);
        return output;
    }

    @Test
    void everyJarNamesALegalModuleAndTheLibraryLoadsFromTheModulePath() throws Exception {
        runOnModulePath(Path.of(System.getProperty("java.home")));
    }

    /**
     * From JDK 22 on, loading a library from a named module warns unless that module has native access:
     * on the module path it is hawtjni's runtime that loads libjrdma.so, and the flag the README gives
     * silences the warning. Runs on each JDK 22+ installed under /usr/lib/jvm.
     */
    @Test
    void theReadmesFlagSilencesTheRestrictedMethodWarningOnNewerJdks() throws Exception {
        List<Path> newer = new ArrayList<>();
        try (Stream<Path> jdks = Files.list(Path.of("/usr/lib/jvm"))) {
            for (Path jdk : jdks.filter(d -> !Files.isSymbolicLink(d)).toList()) {
                if (featureVersion(jdk) >= 22) {
                    newer.add(jdk);
                }
            }
        }
        Assumptions.assumeFalse(newer.isEmpty(), "no JDK 22 or newer under /usr/lib/jvm");
        for (Path jdk : newer) {
            String output = runOnModulePath(jdk, "--enable-native-access=org.fusesource.hawtjni.runtime");
            assertFalse(output.contains("restricted method"), jdk + ": " + output);
        }
    }

    /** What a published jar carries: the license, the notice and its version in the manifest. */
    @Test
    void everyPublishedJarCarriesLicenseNoticeAndVersion() throws Exception {
        for (String module : List.of("java-api", "java-impl", "native", "apps/kv", "apps/keyed", "netty")) {
            Path jar = jar(module);
            try (JarFile file = new JarFile(jar.toFile())) {
                assertTrue(file.getEntry("META-INF/LICENSE") != null, jar + " has no META-INF/LICENSE");
                assertTrue(file.getEntry("META-INF/NOTICE") != null, jar + " has no META-INF/NOTICE");
                String version = jar.getFileName().toString().replaceFirst("^jrdma-[a-z]+-", "").replaceFirst("\\.jar$", "");
                assertEquals(version, file.getManifest().getMainAttributes().getValue("Implementation-Version"), jar.toString());
            }
        }
    }

    /**
     * The native jar's library is stripped, and the debug-symbols artifact the native module attaches
     * (classifier linux-x86_64-debuginfo, native/pom.xml) is its debug info: the same build ID, and the
     * name the library's .gnu_debuglink asks for (binutils' readelf reads both).
     */
    @Test
    void theDebugSymbolsArtifactBelongsToTheShippedLibrary(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path library = dir.resolve("libjrdma.so");
        try (JarFile file = new JarFile(jar("native").toFile())) {
            var entry = file.stream().filter(e -> e.getName().endsWith("/libjrdma.so")).findFirst()
                    .orElseThrow(() -> new AssertionError("no libjrdma.so in the native jar"));
            try (var in = file.getInputStream(entry)) {
                Files.copy(in, library);
            }
        }
        Path symbols = Path.of("..", "native", "target", "cmake", "libjrdma.so.debug");
        assertTrue(Files.isRegularFile(symbols), symbols + " was not built");
        String sections = readelf(library, "-S");
        assertFalse(sections.contains(".debug_info"), "the shipped library is not stripped");
        assertTrue(readelf(library, "-p", ".gnu_debuglink").contains("libjrdma.so.debug"), "no .gnu_debuglink");
        assertTrue(readelf(symbols, "-S").contains(".debug_info"), symbols + " has no debug info");
        assertEquals(buildId(library), buildId(symbols));
    }

    private static String buildId(Path elf) throws Exception {
        return readelf(elf, "-n").lines().filter(l -> l.contains("Build ID:")).findFirst()
                .orElseThrow(() -> new AssertionError(elf + " has no build ID")).trim();
    }

    private static String readelf(Path file, String... options) throws Exception {
        List<String> command = new ArrayList<>(List.of("readelf", "-W"));
        command.addAll(List.of(options));
        command.add(file.toString());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "readelf did not finish");
        assertEquals(0, process.exitValue(), command + ": " + output);
        return output;
    }

    /** The JDK's feature version from its release file (JAVA_VERSION="25.0.1"), or 0. */
    private static int featureVersion(Path jdk) throws IOException {
        Path release = jdk.resolve("release");
        if (!Files.isReadable(release) || !Files.isExecutable(jdk.resolve("bin/java"))) {
            return 0;
        }
        for (String line : Files.readAllLines(release)) {
            if (line.startsWith("JAVA_VERSION=")) {
                String version = line.substring("JAVA_VERSION=".length()).replace("\"", "");
                return Integer.parseInt(version.split("[.+-]")[0]);
            }
        }
        return 0;
    }
}
