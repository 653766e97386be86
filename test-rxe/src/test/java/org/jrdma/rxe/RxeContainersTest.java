package org.jrdma.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.startupcheck.IsRunningStartupCheckStrategy;
import org.testcontainers.containers.startupcheck.OneShotStartupCheckStrategy;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * A server and a client container (privileged, host network) exchange traffic over rxe with the
 * stock tools. In CI they run inside the test VM with a Docker engine started there
 * (test-rxe/run-suite); on a Linux host with Docker and rdma_rxe they run directly; without Docker
 * they are skipped with the reason (disabledWithoutDocker).
 */
@Tag("docker")
@Testcontainers(disabledWithoutDocker = true)
class RxeContainersTest {
    private static Future<String> image;

    @BeforeAll
    static void buildImage() {
        RxeEnvironment.requireDevices();
        Path dockerfileDir = repo().resolve("docker/rxe-test");
        // FROM jrdma-rxe-base:local, imported from the host-built root filesystem.
        image = new ImageFromDockerfile("jrdma-rxe-test", false).withFileFromPath(".", dockerfileDir);
    }

    private static Path repo() {
        return Path.of(System.getProperty("jrdma.repo", System.getenv().getOrDefault("JRDMA_REPO", ".")));
    }

    private static GenericContainer<?> rxeContainer(String... command) {
        return new GenericContainer<>(image)
                .withPrivilegedMode(true)
                .withNetworkMode("host")
                .withCommand(command);
    }

    /** Starts a server container and waits for a one-shot client container to exit with 0; returns the client's log. */
    private static String serverAndClient(String[] serverCommand, String[] clientCommand) {
        try (GenericContainer<?> server = rxeContainer(serverCommand)
                .withStartupCheckStrategy(new IsRunningStartupCheckStrategy())
                .withStartupTimeout(Duration.ofMinutes(3))) {
            server.start();
            // The client retries until the server listens (container start-up under TCG is slow and uneven).
            String[] retrying = {"sh", "-c", "for i in 1 2 3 4 5 6 7 8 9 10; do \"$@\" && exit 0; sleep 2; done; exit 1",
                    "client"};
            String[] command = new String[retrying.length + clientCommand.length];
            System.arraycopy(retrying, 0, command, 0, retrying.length);
            System.arraycopy(clientCommand, 0, command, retrying.length, clientCommand.length);
            try (GenericContainer<?> client = rxeContainer(command)
                    .withStartupCheckStrategy(new OneShotStartupCheckStrategy().withTimeout(Duration.ofMinutes(4)))) {
                client.start(); // fails unless the client exits with status 0
                return client.getLogs();
            }
        }
    }

    @Test
    void rpingBetweenTwoContainers() {
        String log = serverAndClient(
                new String[] {"rping", "-s", "-a", RxeEnvironment.ADDRESS_0, "-p", "7175", "-C", "5"},
                new String[] {"rping", "-c", "-a", RxeEnvironment.ADDRESS_0, "-p", "7175", "-C", "5", "-v"});
        long pings = log.lines().filter(l -> l.startsWith("ping data: rdma-ping-")).count();
        assertEquals(5, pings, log);
    }

    @Test
    void ibvRcPingpongBetweenTwoContainers() {
        String log = serverAndClient(
                new String[] {"ibv_rc_pingpong", "-d", RxeEnvironment.serverDevice(), "-g", "1", "-p", "18520", "-n", "100"},
                new String[] {"ibv_rc_pingpong", "-d", RxeEnvironment.clientDevice(), "-g", "1", "-p", "18520", "-n", "100",
                        RxeEnvironment.ADDRESS_0});
        assertTrue(log.contains("100 iters in"), log);
    }
}
