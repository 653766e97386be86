package org.jrdma.rxe.verbs;

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
import org.jrdma.rxe.contract.AdmissionContract;
import org.jrdma.rxe.contract.Fabric;
import org.jrdma.rxe.contract.ResourceBaseline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The Admission contract over verbs (Soft-RoCE in the VM). */
@ExtendWith(ResourceBaseline.class) // the fault leaves no resource behind
class AdmissionTest extends AdmissionContract {
    @Override
    protected Fabric fabric() {
        return Fabric.VERBS;
    }
}
