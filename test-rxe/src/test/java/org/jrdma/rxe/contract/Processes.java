package org.jrdma.rxe;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the stock tools (perftest, rping, ibv_*) as child processes with a deadline. */
final class Processes {
    private Processes() {
    }

    record Result(int exitCode, String output) {
    }

    /** The command line of a JVM like this one running {@code main} from the test classes (in the VM). */
    static List<String> java(Class<?> main, List<String> args) throws IOException {
        Path repo = Path.of(System.getProperty("jrdma.repo", "."));
        String classPath = repo.resolve("test-rxe/target/test-classes") + ":"
                + Files.readString(repo.resolve("test-rxe/target/vm/classpath.txt")).trim();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-cp", classPath, main.getName()));
        command.addAll(args);
        return command;
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
