package org.jrdma.rxe.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.jrdma.Rdma;
import org.jrdma.rxe.contract.Processes;
import org.jrdma.rxe.contract.RxeEnvironment;
import org.junit.jupiter.api.Test;

/** The jar-bundled libjrdma.so loads in the guest, in this JVM and in plain JVMs started from the demo jar. */
class BundledLibraryTest {
    @Test
    void libraryLoadsAndSeesTheDevice() {
        RxeEnvironment.requireDevices();
        assertTrue(Rdma.isAvailable(), () -> "unavailable: " + Rdma.unavailabilityCause());
        assertFalse(Rdma.devices().isEmpty());
        assertEquals("rxe0", Rdma.devices().get(0).name());
    }

    /** java -jar on every JDK under /usr/lib/jvm (17 and 25 on the build machines): loads, no restricted-method warning. */
    @Test
    void demoJarRunsInAPlainJvmOnEveryJdk() throws Exception {
        RxeEnvironment.requireDevices();
        Path jar = Path.of(System.getProperty("jrdma.repo", System.getenv().getOrDefault("JRDMA_REPO", ".")))
                .resolve("bench/target/jrdma-bench.jar");
        assertTrue(Files.isRegularFile(jar), "missing " + jar + " (build with mvn package first)");
        List<Path> javas = new ArrayList<>();
        try (Stream<Path> jdks = Files.list(Path.of("/usr/lib/jvm"))) {
            jdks.filter(d -> !Files.isSymbolicLink(d)).map(d -> d.resolve("bin/java")).filter(Files::isExecutable)
                    .forEach(javas::add);
        }
        assertFalse(javas.isEmpty(), "no JDK under /usr/lib/jvm");
        for (Path java : javas) {
            // C1 only, as every JVM of the VM suite: under TCG, HotSpot's patching of a C1 method's
            // entry can be executed torn (docs/testing.md; seen once here, JDK 25, 2026-12-01).
            Processes.Result result = Processes.run(180, java.toString(), "-XX:TieredStopAtLevel=1", "-jar", jar.toString(),
                    "devices");
            String out = result.output();
            assertEquals(0, result.exitCode(), java + ":\n" + out);
            assertTrue(out.contains("native library " + Rdma.libraryVersion() + " loaded"), java + ":\n" + out);
            assertTrue(out.contains("device rxe0"), java + ":\n" + out);
            assertFalse(out.contains("restricted method"), java + " printed a native-access warning:\n" + out);
        }
        assertNotNull(Rdma.libraryVersion());
    }
}
