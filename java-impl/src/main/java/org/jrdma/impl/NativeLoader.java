package org.jrdma.impl;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.fusesource.hawtjni.runtime.Library;
import org.jrdma.RdmaUnavailableException;

/**
 * Loads the libjrdma.so bundled under META-INF/native/linux64/ with hawtjni-runtime and checks that
 * its version is the one this jar was built with. Done once; the outcome (success or the cause of the
 * failure) is kept, never thrown from a static initializer.
 */
final class NativeLoader {
    static final String LIBRARY_NAME = "jrdma";

    /**
     * Texts of the dynamic loader (dlopen's reasons): the real cause when one is among the messages.
     * Initialised before {@link #LOAD_FAILURE}: explaining a failure of {@link #load()} reads it.
     */
    private static final List<String> LOADER_REASONS = List.of("cannot open shared object file",
            "version `GLIBC", "version `GLIBCXX", "undefined symbol", "failed to map segment", "wrong ELF class",
            "file too short", "invalid ELF header", "Permission denied", "Operation not permitted");

    private static final Throwable LOAD_FAILURE = load();

    private NativeLoader() {
    }

    /** Null when the library is loaded and matches; otherwise why not. */
    static Throwable loadFailure() {
        return LOAD_FAILURE;
    }

    static void ensureLoaded() {
        if (LOAD_FAILURE != null) {
            throw new RdmaUnavailableException("libjrdma is not loaded: " + LOAD_FAILURE.getMessage(), LOAD_FAILURE);
        }
    }

    private static Throwable load() {
        try {
            String expected = expectedVersion();
            new Library(LIBRARY_NAME, NativeLoader.class).load();
            checkVersion(expected, NativeLibrary.version0());
            Layouts.check(NativeLibrary.layout0());
            return null;
        } catch (UnsatisfiedLinkError e) {
            return new RdmaUnavailableException(explain(e), e);
        } catch (Throwable t) {
            return t;
        }
    }

    /** The build version from jrdma-version.properties (filtered by Maven). */
    static String expectedVersion() {
        try (InputStream in = NativeLoader.class.getResourceAsStream("jrdma-version.properties")) {
            if (in == null) {
                throw new IllegalStateException("jrdma-version.properties is missing from the jrdma-impl jar");
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A library of another version would misinterpret our calls: refuse it loudly. */
    static void checkVersion(String expected, String actual) {
        if (!expected.equals(actual)) {
            throw new IllegalStateException("native library version mismatch: libjrdma.so is " + actual
                    + " but jrdma-impl is " + expected + "; use the jrdma-native jar of the same version"
                    + " (a system-wide libjrdma on java.library.path or -Dlibrary.jrdma.path can shadow the bundled one)");
        }
    }

    /**
     * The innermost reason a load failed and its remedy. hawtjni tries several places and wraps each
     * attempt's error: the one from the dynamic loader (a missing glibc version, a noexec directory)
     * sits at the bottom of its causes or among its suppressed exceptions.
     */
    static String explain(Throwable failure) {
        String reason = innermost(failure);
        String arch = System.getProperty("os.name") + " " + System.getProperty("os.arch");
        String remedy;
        if (!arch.equals("Linux amd64")) {
            remedy = "jrdma's native library is built for Linux x86-64; this JVM runs on " + arch;
        } else if (reason.contains("GLIBC_")) {
            remedy = "libjrdma.so needs glibc 2.28 or newer (RHEL/Rocky 8, Debian 10, Ubuntu 18.10 and later)";
        } else if (reason.contains("failed to map segment") || reason.contains("Operation not permitted")
                || reason.contains("Permission denied")) {
            remedy = "the library is extracted to java.io.tmpdir (" + System.getProperty("java.io.tmpdir")
                    + "), which may be mounted noexec: point -Djava.io.tmpdir or -Dlibrary.jrdma.path at an executable directory";
        } else if (reason.contains("cannot open shared object file")) {
            remedy = "a library libjrdma.so needs is missing here: it needs libc.so.6, libdl.so.2, libstdc++.so.6 (GCC 8"
                    + " or newer) and libgcc_s.so.1";
        } else if (reason.contains("no jrdma in java.library.path")
                || reason.contains("Could not load library")) {
            remedy = "the jrdma-native jar (META-INF/native/linux64/libjrdma.so) must be on the class path next to jrdma-impl";
        } else {
            remedy = "see the cause";
        }
        return "cannot load libjrdma.so: " + reason + " (" + remedy + ")";
    }

    /**
     * The reason to show: a message from the dynamic loader anywhere among the causes and suppressed
     * exceptions (hawtjni also reports the places it looked, which say less); else the deepest message.
     */
    static String innermost(Throwable failure) {
        List<String> messages = new ArrayList<>();
        walk(failure, messages, new IdentityHashMap<>());
        for (String message : messages) {
            if (LOADER_REASONS.stream().anyMatch(message::contains)) {
                return message;
            }
        }
        return messages.isEmpty() ? failure.toString() : messages.get(messages.size() - 1);
    }

    /** Messages depth first, deepest last along each chain. */
    private static void walk(Throwable t, List<String> messages, Map<Throwable, Boolean> seen) {
        if (t == null || seen.put(t, Boolean.TRUE) != null) {
            return;
        }
        if (t.getMessage() != null && !t.getMessage().isBlank()) {
            messages.add(t.getMessage());
        }
        for (Throwable s : t.getSuppressed()) {
            walk(s, messages, seen);
        }
        walk(t.getCause(), messages, seen);
    }
}
