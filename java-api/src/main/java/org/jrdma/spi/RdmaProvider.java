package org.jrdma.spi;

import java.util.List;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaDevice;

/**
 * What an implementation of jrdma provides; found with {@link java.util.ServiceLoader}. Users call
 * {@link org.jrdma.Rdma} instead.
 */
public interface RdmaProvider {
    /** {@return why the implementation cannot be used (native library missing, version mismatch, ...), or null} */
    Throwable unavailabilityCause();

    /** {@return the native library's version; only when available} */
    String libraryVersion();

    /** {@return the devices, queried now; only when available} */
    List<RdmaDevice> devices();

    /**
     * Opens a context; only when available.
     *
     * @param config the device selection and every option
     * @return the open context
     */
    RdmaContext open(RdmaConfig config);
}
