package org.clustersim.study.engine;

/**
 * A distributed engine that {@code --engine NAME} can pick, found with {@link java.util.ServiceLoader}
 * (a {@code META-INF/services/org.clustersim.study.engine.TaskEngineProvider} entry) so that the
 * command-line jar carries no dependency on it: the sim-spark module provides "spark".
 */
public interface TaskEngineProvider {
    /** The name {@code --engine} selects it by. */
    String name();

    /**
     * Refuses a master the engine could not start with (a bad URL, a host that does not answer),
     * within seconds and before any work: a command calls it before it simulates anything, and
     * {@link #open} again. Does nothing by default.
     *
     * @param master as for {@link #open}
     */
    default void check(String master) {
    }

    /**
     * Starts the engine.
     *
     * @param master where it runs (the engine's own URL syntax, e.g. {@code local[2]}, {@code yarn}), or
     *               null for the engine's default
     * @param app    a name for the job (shown in the engine's UI)
     */
    TaskEngine open(String master, String app);
}
