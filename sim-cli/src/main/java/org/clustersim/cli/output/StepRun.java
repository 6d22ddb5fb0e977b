package org.clustersim.cli.output;

import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.SimulatedStep;
import org.clustersim.core.Simulation;
import org.clustersim.strategies.training.TrainingStep;

/**
 * One scenario simulated as {@code clustersim run} simulates it ({@link SimulatedStep}: the
 * training step built with its step sequence, the scenario's faults applied, interference as the
 * scenario says, the figures measured) and put in the shape of the summary file, a
 * {@link RunSummary}.
 *
 * @param step    the training step
 * @param built   its task graph and pipeline bookkeeping
 * @param result  the simulation's result
 * @param summary the measured figures
 */
public record StepRun(TrainingStep step, TrainingStep.Built built, Simulation.Result result, RunSummary summary) {

    /** Builds and simulates {@code scenario}. */
    public static StepRun of(Scenario scenario) {
        return of(scenario, false);
    }

    /**
     * Builds and simulates {@code scenario}; {@code linkCounters} records each link's throughput
     * over time (a report's heat map) even where the scenario does not ask for it.
     */
    public static StepRun of(Scenario scenario, boolean linkCounters) {
        return of(scenario, scenario.trainingStep(), linkCounters);
    }

    /** As {@link #of(Scenario, boolean)} with the scenario's training step already made. */
    public static StepRun of(Scenario scenario, TrainingStep step, boolean linkCounters) {
        return of(scenario, SimulatedStep.of(scenario, step, linkCounters));
    }

    /** The summary of a step already simulated. */
    public static StepRun of(Scenario scenario, SimulatedStep run) {
        return new StepRun(run.step(), run.built(), run.result(), RunSummary.of(scenario, run));
    }

    /** The GPU with the highest peak memory. */
    public RunSummary.Device fullest() {
        return summary.devices().stream()
                .max(java.util.Comparator.comparingLong(d -> d.memory().peakBytes())).orElseThrow();
    }
}
