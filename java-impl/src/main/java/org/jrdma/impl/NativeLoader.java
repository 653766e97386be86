package org.jrdma.impl;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import org.fusesource.hawtjni.runtime.Library;

/**
 * Loads the libjrdma.so bundled under META-INF/native/linux64/ with hawtjni-runtime and checks that
 * its version is the one this jar was built with. Done once; the outcome (success or the cause of the
 * failure) is kept, never thrown from a static initializer.
 */
final class NativeLoader {
    static final String LIBRARY_NAME = "jrdma";

    private static final Throwable LOAD_FAILURE = load();

    private NativeLoader() {
    }

    /** Null when the library is loaded and matches; otherwise why not. */
    static Throwable loadFailure() {
        return LOAD_FAILURE;
    }

    static void ensureLoaded() {
        if (LOAD_FAILURE != null) {
            throw new UnsupportedOperationException("libjrdma is not loaded: " + LOAD_FAILURE.getMessage(), LOAD_FAILURE);
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
            return new UnsatisfiedLinkError(hint(e.getMessage())).initCause(e);
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

    private static String hint(String message) {
        String text = "cannot load libjrdma: " + message;
        if (message != null && (message.contains("libibverbs") || message.contains("librdmacm"))) {
            text += " (install rdma-core's user-space libraries: apt-get install libibverbs1 librdmacm1 ibverbs-providers)";
        }
        return text;
    }
}
