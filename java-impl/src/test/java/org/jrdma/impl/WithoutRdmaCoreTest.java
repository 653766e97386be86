package org.jrdma.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * libjrdma.so loads on a host without rdma-core (libibverbs and librdmacm are opened at run time):
 * a JVM in a mount namespace where both libraries are replaced by empty files loads the library;
 * listing devices or opening a verbs context fails with a ConfigurationException naming the missing
 * library and the remedy — no UnsatisfiedLinkError, no crash — and the default configuration opens
 * TCP contexts that carry a message and a one-sided write. libcrypto is hidden as well: a pre-shared
 * key is then a ConfigurationException naming it, when the key is configured.
 */
class WithoutRdmaCoreTest {
    private static final List<String> LIBRARIES = List.of("libibverbs.so.1", "librdmacm.so.1", "libcrypto.so.3",
            "libcrypto.so.1.1");
    private static final List<Path> LIBRARY_DIRS = List.of(Path.of("/usr/lib/x86_64-linux-gnu"), Path.of("/usr/lib64"),
            Path.of("/lib/x86_64-linux-gnu"), Path.of("/usr/lib"));

    @Test
    void theLibraryLoadsAndExplainsWhatIsMissing() throws Exception {
        // Hide every copy of both libraries the dynamic loader could find, behind /dev/null.
        StringBuilder hide = new StringBuilder();
        for (Path dir : LIBRARY_DIRS) {
            for (String library : LIBRARIES) {
                Path file = dir.resolve(library);
                if (Files.exists(file)) {
                    hide.append("mount --bind /dev/null ").append(file.toRealPath()).append(" && ");
                }
            }
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String run = hide + "exec " + java + " -cp " + System.getProperty("java.class.path") + " " + WithoutRdmaCoreMain.class.getName();
        List<String> command = new ArrayList<>();
        if (hide.length() > 0) { // a private mount namespace (as root, or as an unprivileged user in a user namespace)
            command.addAll("root".equals(System.getProperty("user.name")) ? List.of("unshare", "--mount")
                    : List.of("unshare", "--user", "--map-root-user", "--mount"));
        }
        command.addAll(List.of("sh", "-c", run));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "the JVM did not finish");
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), output);
        assertTrue(output.contains("available=true cause=null"), output);
        assertTrue(output.contains("devices failed: ConfigurationException: cannot load libibverbs.so.1"), output);
        assertTrue(output.contains("verbs open failed: ConfigurationException: cannot load libibverbs.so.1"), output);
        assertTrue(output.contains("apt install libibverbs1 librdmacm1"), output);
        assertTrue(output.contains("default open: TCP"), output);
        assertTrue(output.contains("echo: over TCP"), output);
        assertTrue(output.contains("written: over TCP"), output);
        assertTrue(output.contains("listen with a key failed: ConfigurationException: the pre-shared-key authentication"
                + " needs OpenSSL's libcrypto"), output);
        assertTrue(output.contains("apt install libssl3"), output);
    }
}
