package org.jrdma.rxe.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.jrdma.rxe.contract.Processes;
import org.jrdma.rxe.contract.ResourceBaseline;
import org.jrdma.rxe.contract.RxeEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** An unprivileged process with a small memlock limit gets a RegistrationException with errno and the ulimit hint. */
@ExtendWith(ResourceBaseline.class) // the fault leaves no resource behind
class MemlockTest {
    @Test
    void registrationBeyondTheMemlockLimitIsATypedExceptionNamingTheLimit() throws Exception {
        RxeEnvironment.requireDevices();
        Path repo = Path.of(System.getProperty("jrdma.repo", "."));
        // The probe runs as nobody, who cannot read the build's home directory: copy its class path to /tmp.
        Path dir = Files.createTempDirectory("memlock");
        List<String> classPath = new ArrayList<>();
        String[] entries = Files.readString(repo.resolve("test-rxe/target/vm/classpath.txt")).trim().split(":");
        for (String entry : entries) {
            Path source = Path.of(entry);
            Path target = dir.resolve(classPath.size() + "-" + source.getFileName());
            Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
            classPath.add(target.toString());
        }
        Path classes = dir.resolve("classes/org/jrdma/rxe/verbs");
        Files.createDirectories(classes);
        Files.copy(repo.resolve("test-rxe/target/test-classes/org/jrdma/rxe/verbs/MemlockProbe.class"), classes.resolve("MemlockProbe.class"));
        classPath.add(dir.resolve("classes").toString());
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(Files.isDirectory(p) ? "rwxr-xr-x" : "rw-r--r--"));
            }
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String command = "ulimit -l 1024 && exec setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "
                + "env HOME=/tmp " + java + " -XX:TieredStopAtLevel=1 -cp " + String.join(":", classPath)
                + " " + MemlockProbe.class.getName();
        Processes.Result result = Processes.run(180, "sh", "-c", command);
        String out = result.output();
        assertEquals(0, result.exitCode(), out);
        assertTrue(out.contains("SMALL-OK"), out);
        assertTrue(out.contains("REGISTRATION-FAILED errno=12") || out.contains("REGISTRATION-FAILED errno=1"), out);
        assertTrue(out.contains("ulimit -l") && out.contains("now 1024 KiB"), out);
        assertTrue(out.contains("ibv_reg_mr(addr="), out);
    }
}
