package org.jrdma.rxe.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.jrdma.rxe.contract.Processes;
import org.jrdma.rxe.contract.RxeEnvironment;
import org.junit.jupiter.api.Test;

/** The harness brought Soft-RoCE up: devices in sysfs, in ibv_devices, ports active. */
class DeviceSmokeTest {
    @Test
    void devicesAreVisibleInSysfsAndToLibibverbs() throws Exception {
        List<String> sysfs = RxeEnvironment.requireDevices();
        assertTrue(sysfs.contains("rxe0"), "sysfs devices: " + sysfs);
        if (RxeEnvironment.topology().equals("two")) {
            assertTrue(sysfs.contains("rxe1"), "sysfs devices: " + sysfs);
        }
        Processes.Result result = Processes.run(30, "ibv_devices");
        assertEquals(0, result.exitCode(), result.output());
        for (String name : sysfs) {
            assertTrue(result.output().contains(name), "ibv_devices does not list " + name + ":\n" + result.output());
        }
    }

    @Test
    void portsAreActive() {
        for (String name : RxeEnvironment.requireDevices()) {
            String state = RxeEnvironment.readSysfs(RxeEnvironment.SYSFS.resolve(name).resolve("ports/1/state"));
            assertEquals("4: ACTIVE", state, name + " port 1");
        }
    }
}
