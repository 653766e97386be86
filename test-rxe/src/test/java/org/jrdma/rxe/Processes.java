package org.jrdma.rxe;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the stock tools (perftest, rping, ibv_*) as child processes with a deadline. */
final class Processes {
    private Processes() {
    }

    record Result(int exitCode, String output) {
    }

    static Process start(List<String> command) throws IOException {
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /** Waits for the process; kills it and fails when it outlives the deadline. */
    static Result finish(Process process, long timeoutSeconds) throws IOException, InterruptedException {
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            String partial = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            throw new AssertionError(process.info().commandLine().orElse("process") + " did not finish within "
                    + timeoutSeconds + " s; output so far:\n" + partial);
        }
        return new Result(process.exitValue(), new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    static Result run(long timeoutSeconds, String... command) throws IOException, InterruptedException {
        return finish(start(List.of(command)), timeoutSeconds);
    }
}
