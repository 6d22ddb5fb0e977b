package org.clustersim.cli;

import java.util.ListResourceBundle;

import org.clustersim.study.engine.TaskEngine;
import org.clustersim.study.engine.TaskEngines;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code --threads}, {@code --engine} and {@code --master}: where the commands that fan their
 * work out over a {@link TaskEngine} ({@code whatif}, {@code plan}, {@code goodput}) run it. Each
 * command checks the range of {@code --threads} itself, as its limits and messages differ.
 *
 * <p>The descriptions below are the general wording; {@link Descriptions} words them for each
 * command's own work ("Where candidates run"), looked up by picocli under the command's
 * qualified name, so {@code --help} reads as it did when each command declared the options.
 */
@Command(resourceBundle = "org.clustersim.cli.TaskEngineOptions$Descriptions")
final class TaskEngineOptions {
    @Option(names = "--threads", paramLabel = "N", description = "Threads of the embedded pool (default: all cores).")
    int threads = Runtime.getRuntime().availableProcessors();

    @Option(names = "--engine", paramLabel = "local|spark", defaultValue = TaskEngines.LOCAL,
            description = "Where the work runs: local (this JVM's threads) or spark (needs the sim-spark jar).")
    String engine;

    @Option(names = "--master", paramLabel = "URL", description = "Spark master for --engine spark (default: what "
            + "spark-submit set, else local[*]).")
    String master;

    /**
     * Refuses an engine or master that cannot work (not on the class path, an unreachable master)
     * in seconds: commands call it before they simulate anything.
     */
    void check() {
        TaskEngines.check(engine, master);
    }

    /** The engine the options name; {@code app} names the job in a distributed engine's UI. */
    TaskEngine open(String app) {
        return TaskEngines.open(engine, master, threads, app);
    }

    /**
     * Each command's wording of the options, keyed {@code clustersim.COMMAND.OPTION}; picocli
     * falls back to the description on the option where a command has none here. Public, as
     * {@link java.util.ResourceBundle} instantiates it by name.
     */
    public static final class Descriptions extends ListResourceBundle {
        @Override
        protected Object[][] getContents() {
            return new Object[][] {
                {"clustersim.whatif.threads", "Parallel simulations, at most 256 (default: all cores)."},
                {"clustersim.whatif.engine", "Where a sweep's variants run: local (this JVM's threads) or spark "
                        + "(needs the sim-spark jar)."},
                {"clustersim.plan.engine", "Where candidates run: local (this JVM's threads) or spark (needs the "
                        + "sim-spark jar)."},
                {"clustersim.plan.master", "Spark master: local[2], spark://host:7077, yarn, k8s://https://host:443 "
                        + "(default: what spark-submit set, else local[*])."},
                {"clustersim.goodput.threads", "Threads for the replications (default: all cores)."},
                {"clustersim.goodput.engine", "Where replications run: local (this JVM's threads) or spark (needs "
                        + "the sim-spark jar)."},
            };
        }
    }
}
