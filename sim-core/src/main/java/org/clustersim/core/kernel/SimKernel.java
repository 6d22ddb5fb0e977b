package org.clustersim.core.kernel;

/**
 * The discrete-event kernel as the rest of the simulator sees it: a clock in nanoseconds and
 * a way to run an action at a future instant.
 *
 * <p>Actions scheduled for the same instant run in the order they were scheduled, so a run is
 * deterministic. {@link #run()} executes on the caller's thread until no action is pending.
 */
public interface SimKernel {
    /** Current simulated time in nanoseconds since the start of the run. */
    long now();

    /**
     * Runs {@code action} at simulated time {@code atNs}.
     *
     * @throws IllegalArgumentException if {@code atNs} lies before {@link #now()}
     */
    void schedule(long atNs, Runnable action);

    /**
     * Executes pending actions in time order until none is left.
     *
     * @return the number of actions executed
     * @throws SimulationException wrapping the first exception an action threw, with the time
     */
    long run();
}
