package org.jrdma.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

/** {@code jmh [JMH options]}: the JMH benchmarks of the hot paths (org.jrdma.impl.HotPathBenchmarks, in java-impl's test sources); JMH's own -h lists its options. */
@Command(name = "jmh", description = "the JMH benchmarks of the hot paths; every argument goes to JMH (-h: JMH's options)")
final class JmhCommand implements Callable<Integer> {
    @Option(names = "--help", usageHelp = true, description = "this help")
    boolean help;

    @Unmatched
    List<String> jmhArguments = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        org.openjdk.jmh.Main.main(jmhArguments.toArray(String[]::new));
        return 0;
    }
}
