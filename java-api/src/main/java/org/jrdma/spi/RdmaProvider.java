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
    /** Why the implementation cannot be used (native library missing, version mismatch, ...), or null. */
    Throwable unavailabilityCause();

    /** The native library's version; only when available. */
    String libraryVersion();

    /** Queries the devices now; only when available. */
    List<RdmaDevice> devices();

    /** Opens a context; only when available. */
    RdmaContext open(RdmaConfig config);
}
