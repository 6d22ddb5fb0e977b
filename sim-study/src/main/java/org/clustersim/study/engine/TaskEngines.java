package org.clustersim.study.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

import org.clustersim.core.input.InputException;

/**
 * Opens the engine {@code --engine} names: {@code local} is the embedded pool; any other name is
 * looked up among the {@link TaskEngineProvider}s on the class path, and one that is missing is
 * bad input (exit 2) with a pointer to how to run it.
 */
public final class TaskEngines {
    /** The name of the embedded pool. */
    public static final String LOCAL = "local";

    private TaskEngines() {
    }

    /**
     * @param engine  {@code local} or a provider's name
     * @param master  the engine's master URL ({@code --master}), null for its default; only for a provider
     * @param threads threads of the embedded pool
     * @param app     job name for a provider's UI
     */
    public static TaskEngine open(String engine, String master, int threads, String app) {
        if (engine.equals(LOCAL)) {
            check(engine, master);
            return new EmbeddedPool(threads);
        }
        return provider(engine).open(master, app);
    }

    /**
     * Refuses, before a command does any work, an engine that is not on the class path, a master
     * without a distributed engine, or a master the engine could not start with.
     */
    public static void check(String engine, String master) {
        if (engine.equals(LOCAL)) {
            if (master != null) {
                throw new InputException("--master " + master + " is for a distributed engine; give --engine spark "
                        + "with it, or leave it out to run on this machine's cores");
            }
            return;
        }
        provider(engine).check(master);
    }

    private static TaskEngineProvider provider(String engine) {
        List<String> found = new ArrayList<>();
        for (TaskEngineProvider p : ServiceLoader.load(TaskEngineProvider.class)) {
            if (p.name().equals(engine)) {
                return p;
            }
            found.add(p.name());
        }
        String hint = engine.equals("spark")
                ? "the Spark engine lives in the sim-spark module's jar, which this command line was not started "
                + "with: run ./clustersim-spark (or spark-submit sim-spark/target/clustersim-spark.jar; see "
                + "docs/spark.md)"
                : "expected local" + (found.isEmpty() ? "" : " or " + String.join(", ", found));
        throw new InputException("--engine " + engine + ": no such engine on the class path; " + hint);
    }
}
