package org.jrdma.rxe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jrdma.AdmissionPolicy;
import org.jrdma.AdmissionPolicy.Admission;
import org.jrdma.AdmissionRefusedException;
import org.jrdma.ConnectionRequest;
import org.jrdma.RdmaChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The Admission contract over verbs (Soft-RoCE in the VM). */
@ExtendWith(ResourceBaseline.class) // the fault leaves no resource behind
class AdmissionTest extends AdmissionContract {
    @Override
    Fabric fabric() {
        return Fabric.VERBS;
    }
}
