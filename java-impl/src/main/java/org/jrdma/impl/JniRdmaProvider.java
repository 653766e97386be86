package org.jrdma.impl;

import java.util.List;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.RdmaDevice;
import org.jrdma.spi.RdmaProvider;

/** The JNI-backed implementation, registered in META-INF/services. */
public final class JniRdmaProvider implements RdmaProvider {
    @Override
    public Throwable unavailabilityCause() {
        return NativeLoader.loadFailure();
    }

    @Override
    public String libraryVersion() {
        NativeLoader.ensureLoaded();
        return NativeLibrary.version0();
    }

    @Override
    public List<RdmaDevice> devices() {
        NativeLoader.ensureLoaded();
        return DeviceInfoParser.parse(NativeLibrary.devices0());
    }

    @Override
    public RdmaContext open(RdmaConfig config) {
        NativeLoader.ensureLoaded();
        return new JniContext(config, TransportChoice.choose(config, this::devices));
    }
}
