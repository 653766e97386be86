package org.jrdma.rxe.contract;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Child processes of the suite: the stock tools (perftest, rping, ibv_*) with a deadline, and peer JVMs whose
 * output lines a test waits on.
 */
public final class Processes {
    private Processes() {
    }

    public record Result(int exitCode, String output) {
    }

    /**
     * The command line of a JVM like this one running {@code main} from the test classes: in the VM
     * with the class path the host built for it, under Maven (before that file exists) with this JVM's.
     */
    public static List<String> java(Class<?> main, List<String> args) throws IOException {
        return java(main, List.of(), args);
    }

    /** As {@link #java(Class, List)}, with options for the JVM (e.g. its heap). */
    public static List<String> java(Class<?> main, List<String> jvmOptions, List<String> args) throws IOException {
        Path repo = Path.of(System.getProperty("jrdma.repo", "."));
        Path vmClassPath = repo.resolve("test-rxe/target/vm/classpath.txt");
        String classPath = !Files.exists(vmClassPath)
                ? System.getProperty("java.class.path")
                : repo.resolve("test-rxe/target/test-classes") + ":" + Files.readString(vmClassPath).trim();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classPath, main.getName()));
        command.addAll(args);
        return command;
    }

    public static Process start(List<String> command) throws IOException {
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /** Waits for the process; kills it and fails when it outlives the deadline. */
    public static Result finish(Process process, long timeoutSeconds) throws IOException, InterruptedException {
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            String partial = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            throw new AssertionError(process.info().commandLine().orElse("process") + " did not finish within "
                    + timeoutSeconds + " s; output so far:\n" + partial);
        }
        return new Result(process.exitValue(), new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    public static Result run(long timeoutSeconds, String... command) throws IOException, InterruptedException {
        return finish(start(List.of(command)), timeoutSeconds);
    }
    /** A JVM running {@code main}; its output lines arrive in {@code lines}. */
    public static Process startJava(BlockingQueue<String> lines, Class<?> main, List<String> args) throws Exception {
        return startJava(lines, main, args, Map.of());
    }

    /** A JVM running {@code main} with {@code environment} added to this one's; its output lines arrive in {@code lines}. */
    public static Process startJava(BlockingQueue<String> lines, Class<?> main, List<String> args,
                                    Map<String, String> environment) throws Exception {
        return startJava(lines, main, List.of(), args, environment);
    }

    /** As above, with options for the JVM. */
    public static Process startJava(BlockingQueue<String> lines, Class<?> main, List<String> jvmOptions,
                                    List<String> args, Map<String, String> environment) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(Processes.java(main, jvmOptions, args)).redirectErrorStream(true);
        builder.environment().putAll(environment);
        Process process = builder.start();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the process died
            }
        });
        reader.setDaemon(true);
        reader.start();
        return process;
    }

    /** Waits (240 s at most) until the process printed {@code expected}. */
    public static void awaitLine(BlockingQueue<String> lines, String expected) throws InterruptedException {
        List<String> seen = new ArrayList<>();
        // A generous bound: under TCG the child JVM starts slowly and 32 MiB of READs take seconds.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
        while (System.nanoTime() < deadline) {
            String line = lines.poll(1, TimeUnit.SECONDS);
            if (line == null) {
                continue;
            }
            seen.add(line);
            if (line.equals(expected)) {
                return;
            }
        }
        throw new AssertionError("the peer did not print " + expected + "; it printed " + seen);
    }
}
