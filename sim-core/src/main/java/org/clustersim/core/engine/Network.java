package org.clustersim.core.engine;

/**
 * Moves bytes between devices in simulated time. The engine hands it one phase of a
 * communication task at a time; the network decides when each flow arrives (from link
 * bandwidth, latency and, in congestion-aware models, the other flows sharing the links)
 * and calls back once the whole phase is done.
 */
public interface Network {
    /**
     * Starts every flow of {@code phase} now and runs {@code onDone} (through the kernel) once
     * the last of them has arrived and the phase's own latency has passed.
     *
     * @param owner name of the task the phase belongs to, for error messages
     */
    void transfer(String owner, Phase phase, Runnable onDone);
}
