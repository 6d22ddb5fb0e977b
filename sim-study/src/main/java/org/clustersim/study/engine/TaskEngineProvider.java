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
     * Starts the engine.
     *
     * @param master where it runs (the engine's own URL syntax, e.g. {@code local[2]}, {@code yarn}), or
     *               null for the engine's default
     * @param app    a name for the job (shown in the engine's UI)
     */
    TaskEngine open(String master, String app);
}
