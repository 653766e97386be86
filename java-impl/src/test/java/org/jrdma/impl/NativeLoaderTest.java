package org.jrdma.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.jrdma.ConfigurationException;
import org.jrdma.Rdma;
import org.junit.jupiter.api.Test;

class NativeLoaderTest {
    @Test
    void bundledLibraryLoadsFromTheJarWithoutLibraryPath() {
        assertNull(System.getProperty("library.jrdma.path"), "the test must not point hawtjni at a directory");
        assertNull(NativeLoader.loadFailure(), () -> "load failed: " + NativeLoader.loadFailure());
        assertTrue(Rdma.isAvailable());
        assertNull(Rdma.unavailabilityCause());
    }

    @Test
    void libraryReportsTheBuildVersion() {
        assertEquals(NativeLoader.expectedVersion(), Rdma.libraryVersion());
        assertTrue(Rdma.libraryVersion().matches("\\d+\\.\\d+\\.\\d+.*"), Rdma.libraryVersion());
    }

    @Test
    void versionMismatchIsAClearError() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> NativeLoader.checkVersion("1.2.0", "1.1.9"));
        assertTrue(e.getMessage().contains("libjrdma.so is 1.1.9 but jrdma-impl is 1.2.0"), e.getMessage());
    }

    @Test
    void devicesCanBeListedWithoutADevice() {
        // Host-side: no RDMA device exists here, which must be an empty list, not a failure. Where
        // rdma-core's user-space library is not installed at all (a machine with only a JDK and a
        // compiler), listing says so and how to install it (WithoutRdmaCoreTest hides it on purpose).
        // The VM suite (test-rxe) checks the listing against sysfs on a real rxe device.
        if (!ibverbsInstalled()) {
            ConfigurationException e = assertThrows(ConfigurationException.class, Rdma::devices);
            assertTrue(e.getMessage().startsWith("cannot load libibverbs.so.1"), e.getMessage());
            assertTrue(e.getMessage().contains("apt install libibverbs1"), e.getMessage());
        } else if (!Files.isDirectory(Path.of("/sys/class/infiniband"))) {
            assertEquals(List.of(), Rdma.devices());
        } else {
            Rdma.devices().forEach(d -> assertTrue(!d.name().isEmpty()));
        }
    }

    /** Whether the dynamic loader finds libibverbs.so.1 in this machine's library directories. */
    private static boolean ibverbsInstalled() {
        return Stream.of("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/lib/x86_64-linux-gnu",
                "/usr/lib").anyMatch(dir -> Files.exists(Path.of(dir, "libibverbs.so.1")));
    }

    @Test
    void aLoadFailureNamesTheInnermostReasonAndTheRemedy() {
        // As hawtjni reports it: an outer error, the attempts as suppressed exceptions, the loader's text inside.
        UnsatisfiedLinkError outer = new UnsatisfiedLinkError("Could not load library. Reasons: [no jrdma in java.library.path]");
        UnsatisfiedLinkError attempt = new UnsatisfiedLinkError("Could not load library /tmp/libjrdma-1.so");
        attempt.initCause(new UnsatisfiedLinkError("/tmp/libjrdma-1.so: /lib64/libc.so.6: version `GLIBC_2.32' not found"));
        outer.addSuppressed(attempt);
        String text = NativeLoader.explain(outer);
        assertTrue(text.contains("version `GLIBC_2.32' not found"), text);
        if (System.getProperty("os.name").equals("Linux") && System.getProperty("os.arch").equals("amd64")) {
            assertTrue(text.contains("needs glibc 2.28 or newer"), text);
        }

        // The places hawtjni looked come after the loader's reason: the reason wins.
        UnsatisfiedLinkError places = new UnsatisfiedLinkError("Could not load library");
        places.addSuppressed(new UnsatisfiedLinkError("/tmp/libjrdma-2.so: libdl.so.2: cannot open shared object file: No such file"));
        places.addSuppressed(new UnsatisfiedLinkError("no jrdma in java.library.path: /usr/lib"));
        assertTrue(NativeLoader.explain(places).contains("libdl.so.2: cannot open shared object file"), NativeLoader.explain(places));
        if (System.getProperty("os.name").equals("Linux") && System.getProperty("os.arch").equals("amd64")) {
            assertTrue(NativeLoader.explain(places).contains("a library libjrdma.so needs is missing"), NativeLoader.explain(places));
        }

        UnsatisfiedLinkError noexec = new UnsatisfiedLinkError("Could not load library");
        noexec.addSuppressed(new UnsatisfiedLinkError("/tmp/libjrdma.so: failed to map segment from shared object"));
        assertTrue(NativeLoader.explain(noexec).contains("-Djava.io.tmpdir"), NativeLoader.explain(noexec));
    }
}
