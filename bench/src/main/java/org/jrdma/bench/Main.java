package org.jrdma.bench;

import java.io.PrintWriter;
import java.net.UnknownHostException;
import java.util.List;
import java.util.concurrent.Callable;
import org.jrdma.ConfigurationException;
import org.jrdma.Rdma;
import org.jrdma.RdmaException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;

/**
 * Command-line entry of jrdma-bench.jar (picocli). Exit codes: 0 done, 1 a run failed (an RDMA
 * error, no device for {@code devices}), 2 bad input — a bad argument, an unknown command or option,
 * or a configuration that cannot work (no device, a wrong RDMA_* value): always one line on stderr,
 * never a stack trace.
 */
@Command(name = "jrdma-bench", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = {"jrdma's benchmarks and examples; without a command: devices.",
            "Over RDMA when a device has an active port (Soft-RoCE counts); RDMA_TRANSPORT=tcp or shm runs them over TCP"
                + " or same-host shared memory, and the other RDMA_* variables choose the device"
                + " (docs/configuration.md)."},
        subcommands = {DevicesCommand.class, PingPongCommand.class, BenchCommand.class, KeyedCommand.class, KvCommand.class,
            AllocCommand.class, IdleCpuCommand.class, ScaleCommand.class, NioCommand.class, NettyCommand.class, CompareReport.class, JmhCommand.class})
public final class Main implements Callable<Integer> {
    @Override
    public Integer call() {
        return DevicesCommand.run(System.out);
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return commandLine().execute(args);
    }

    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new Main());
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        cli.setParameterExceptionHandler(Main::badArgument);
        cli.setExecutionExceptionHandler((e, commandLine, parsed) -> failed(e, commandLine));
        return cli;
    }

    /** A bad argument: one line naming the command and what is wrong, exit code 2. */
    private static int badArgument(ParameterException e, String[] args) {
        CommandLine command = e.getCommandLine();
        PrintWriter err = command.getErr();
        err.println(command.getCommandSpec().qualifiedName() + ": " + e.getMessage().replace('\n', ' ')
                + " (see " + command.getCommandSpec().qualifiedName() + " --help)");
        err.flush();
        return CommandLine.ExitCode.USAGE;
    }

    /** What a command threw: one line for the errors a user can act on, a stack trace for bugs. */
    private static int failed(Exception e, CommandLine command) {
        PrintWriter err = command.getErr();
        String name = command.getCommandSpec().qualifiedName();
        int status;
        if (e instanceof IllegalArgumentException || e instanceof ConfigurationException || e instanceof UnknownHostException) {
            err.println(name + ": " + e.getMessage()); // bad input or configuration (no device, a wrong RDMA_* value)
            status = CommandLine.ExitCode.USAGE;
        } else if (e instanceof RdmaException) {
            err.println(name + ": " + e.getMessage());
            status = CommandLine.ExitCode.SOFTWARE;
        } else {
            e.printStackTrace(err);
            status = CommandLine.ExitCode.SOFTWARE;
        }
        err.flush();
        return status;
    }

    /** {@code --version}: the tool's and the library's versions. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String tool = Main.class.getPackage().getImplementationVersion();
            return List.of("jrdma-bench " + (tool == null ? "(development build)" : tool),
                    "jrdma native library: " + (Rdma.isAvailable() ? Rdma.libraryVersion()
                            : "not available: " + Rdma.unavailabilityCause())).toArray(String[]::new);
        }
    }
}
