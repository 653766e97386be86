package org.jrdma.rxe.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jrdma.rxe.contract.Processes;
import org.jrdma.rxe.contract.RxeEnvironment;
import org.junit.jupiter.api.Test;

/** Two processes exchange real traffic over rxe with the stock tools: perftest (verbs) and rping (rdma_cm). */
class StockToolsSmokeTest {
    @Test
    void perftestWriteLatencyBetweenTwoProcesses() throws Exception {
        int port = 18515;
        Process server = Processes.start(List.of("ib_write_lat", "-d", RxeEnvironment.serverDevice(), "-x", "1",
                "-n", "200", "-p", String.valueOf(port)));
        try {
            // perftest's server must be listening before the client connects; the client retries briefly.
            Processes.Result client = null;
            for (int attempt = 0; attempt < 20; attempt++) {
                Thread.sleep(500);
                client = Processes.run(120, "ib_write_lat", "-d", RxeEnvironment.clientDevice(), "-x", "1", "-n", "200",
                        "-p", String.valueOf(port), RxeEnvironment.ADDRESS_0);
                if (client.exitCode() == 0 || !client.output().contains("Couldn't connect")) {
                    break;
                }
            }
            assertEquals(0, client.exitCode(), client.output());
            // The result row: " 2  200  t_min t_max t_typical ..."
            Matcher row = Pattern.compile("(?m)^\\s*2\\s+200\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)").matcher(client.output());
            assertTrue(row.find(), "no result row in:\n" + client.output());
            double typical = Double.parseDouble(row.group(3));
            assertTrue(typical > 0, "typical latency " + typical);
            Processes.Result serverResult = Processes.finish(server, 60);
            assertEquals(0, serverResult.exitCode(), serverResult.output());
        } finally {
            server.destroyForcibly();
        }
    }

    @Test
    void rpingOverRdmaCm() throws Exception {
        Process server = Processes.start(List.of("rping", "-s", "-a", RxeEnvironment.ADDRESS_0, "-p", "7174", "-C", "10"));
        try {
            Processes.Result client = null;
            for (int attempt = 0; attempt < 20; attempt++) {
                Thread.sleep(500);
                client = Processes.run(60, "rping", "-c", "-a", RxeEnvironment.ADDRESS_0, "-p", "7174", "-C", "10", "-v");
                if (client.exitCode() == 0) {
                    break;
                }
            }
            assertEquals(0, client.exitCode(), client.output());
            long pings = client.output().lines().filter(l -> l.startsWith("ping data: rdma-ping-")).count();
            assertEquals(10, pings, client.output());
        } finally {
            server.destroyForcibly();
        }
    }
}
