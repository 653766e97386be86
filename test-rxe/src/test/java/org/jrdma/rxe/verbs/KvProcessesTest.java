package org.jrdma.rxe.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.jrdma.rxe.contract.Endpoints;
import org.jrdma.rxe.contract.Processes;
import org.jrdma.rxe.contract.RxeEnvironment;
import org.junit.jupiter.api.Test;

/**
 * ps-lite's deployment over real verbs: two servers and three workers, each in its own JVM, push and
 * pull 1,000 keys of 4 B..4 MiB for several rounds with barriers between the phases; every worker
 * checks every pulled value against its own model of all workers' pushes ({@link KvPeer}). From the
 * second round on, the keys of 64 KiB and more go zero-copy into their write slots.
 */
class KvProcessesTest {
    private static final int ROUNDS = 8;

    @Test
    void twoServersAndThreeWorkersInSeparateProcessesAgreeWithTheModel() throws Exception {
        RxeEnvironment.requireDevices();
        String local = Endpoints.localAddressOfClients().getHostAddress();
        List<Process> servers = new ArrayList<>();
        List<Process> workers = new ArrayList<>();
        try {
            List<String> addresses = new ArrayList<>();
            for (int s = 0; s < 2; s++) {
                int port = Endpoints.nextAddress().getPort();
                BlockingQueue<String> lines = new LinkedBlockingQueue<>();
                Process server = Processes.startJava(lines, KvPeer.class, List.of("server", RxeEnvironment.serverDevice(),
                        RxeEnvironment.ADDRESS_0, "" + port));
                servers.add(server);
                Processes.awaitLine(lines, "LISTENING");
                addresses.add(RxeEnvironment.ADDRESS_0 + ":" + port);
            }
            for (int w = 0; w < 3; w++) {
                List<String> args = new ArrayList<>(List.of("worker", RxeEnvironment.clientDevice(), local, "" + w, "3",
                        "" + ROUNDS));
                args.addAll(addresses);
                workers.add(Processes.start(Processes.java(KvPeer.class, args)));
            }
            for (int w = 0; w < 3; w++) {
                Processes.Result result = Processes.finish(workers.get(w), 600);
                assertEquals(0, result.exitCode(), "worker " + w + ":\n" + result.output());
                assertTrue(result.output().contains("ROUND " + (ROUNDS - 1) + " OK"), result.output());
                // Keys of 64 KiB..4 MiB (7 of them) push into slots once their first push is in.
                assertTrue(result.output().contains("SLOTS 7"), result.output());
            }
        } finally {
            workers.forEach(Process::destroyForcibly);
            servers.forEach(Process::destroyForcibly);
        }
    }
}
