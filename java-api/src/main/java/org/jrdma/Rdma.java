package org.jrdma;

import java.util.List;
import java.util.ServiceLoader;
import org.jrdma.spi.RdmaProvider;

/**
 * Entry point of jrdma.
 *
 * <pre>{@code
 * if (!Rdma.isAvailable()) {
 *     throw new IllegalStateException("no RDMA", Rdma.unavailabilityCause());
 * }
 * for (RdmaDevice device : Rdma.devices()) { ... }
 * }</pre>
 *
 * <p>Nothing here throws from a static initializer: when the native library cannot be loaded,
 * {@link #isAvailable()} answers false and {@link #unavailabilityCause()} says why.
 */
public final class Rdma {
    private Rdma() {
    }

    private static final class Holder {
        static final RdmaProvider PROVIDER;
        static final Throwable CAUSE;

        static {
            RdmaProvider provider = null;
            Throwable cause;
            try {
                provider = ServiceLoader.load(RdmaProvider.class, Rdma.class.getClassLoader()).findFirst().orElse(null);
                cause = provider == null
                        ? new RdmaUnavailableException("no jrdma implementation on the class path (add jrdma-impl)", null)
                        : provider.unavailabilityCause();
            } catch (Throwable t) { // a broken provider must not break class initialisation
                cause = t;
            }
            PROVIDER = cause == null ? provider : null;
            CAUSE = cause;
        }
    }

    /**
     * Whether the native library is loaded and usable. Says nothing about whether a device exists.
     *
     * @return true when jrdma can be used in this JVM
     */
    public static boolean isAvailable() {
        return Holder.PROVIDER != null;
    }

    /**
     * Why jrdma cannot be used here.
     *
     * @return the cause, or null when {@link #isAvailable()}
     */
    public static Throwable unavailabilityCause() {
        return Holder.CAUSE;
    }

    /** Throws a {@link RdmaUnavailableException} carrying the cause unless available. */
    public static void ensureAvailability() {
        if (Holder.PROVIDER == null) {
            throw new RdmaUnavailableException("jrdma is not available: " + Holder.CAUSE.getMessage(), Holder.CAUSE);
        }
    }

    /**
     * The version of the loaded native library (equal to the Java side's).
     *
     * @return the version
     */
    public static String libraryVersion() {
        ensureAvailability();
        return Holder.PROVIDER.libraryVersion();
    }

    /**
     * Opens a context on the device the configuration selects.
     *
     * @param config the device selection and every option
     * @return the open context; close it when done
     * @throws ConfigurationException when the configuration does not fit the devices here
     * @throws RdmaException          when verbs fails (errno inside)
     */
    public static RdmaContext open(RdmaConfig config) {
        ensureAvailability();
        return Holder.PROVIDER.open(config);
    }

    /**
     * Opens a context configured from the RDMA_* environment variables.
     *
     * @return the open context; close it when done
     */
    public static RdmaContext open() {
        return open(RdmaConfig.fromEnvironment());
    }

    /**
     * The RDMA devices of this host, queried now.
     *
     * @return the devices with their ports and GID tables; empty when there are none
     * @throws ConfigurationException when rdma-core's user-space libraries (libibverbs, librdmacm) cannot be
     *                                loaded; the message names the missing library and how to install it
     */
    public static List<RdmaDevice> devices() {
        ensureAvailability();
        return Holder.PROVIDER.devices();
    }
}
