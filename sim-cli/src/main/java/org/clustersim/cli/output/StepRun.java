package org.clustersim.cli.output;

import org.clustersim.cli.scenario.FaultEvents;
import org.clustersim.cli.scenario.Scenario;
import org.clustersim.core.RunOptions;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.Interference;
import org.clustersim.strategies.training.TrainingStep;

/**
 * One scenario simulated as {@code clustersim run} simulates it: the training step built with
 * its step sequence, the scenario's faults applied, interference as the scenario says, and the
 * run measured into a {@link RunSummary}. The one path every command that reports a scenario's
 * step takes ({@code run}, {@code plan}), so that a plan's winner reproduces under {@code run}.
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
        TrainingStep.Built built = step.build(scenario.stepSequence());
        FaultEvents faults = scenario.faultEvents(step.topology());
        Simulation.Result run = Simulation.run(built.graph(), step.topology(), RunOptions.DEFAULT
                .withFidelity(scenario.fidelity()).withRouting(scenario.routing()).withKernel(scenario.kernel())
                .withLinkEvents(faults.links())
                .withDeviceEvents(faults.devices()).withLinkTracks(linkCounters || scenario.output().linkCounters())
                .withInterference(scenario.interference() ? step.interference(built.graph()) : Interference.NONE));
        return new StepRun(step, built, run, RunSummary.of(scenario, run, step, built));
    }

    /** The GPU with the highest peak memory. */
    public RunSummary.Device fullest() {
        return summary.devices().stream()
                .max(java.util.Comparator.comparingLong(d -> d.memory().peakBytes())).orElseThrow();
    }
}
