package org.clustersim.study;

import org.clustersim.study.scenario.FaultEvents;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.core.RunOptions;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.Interference;
import org.clustersim.strategies.training.TrainingStep;
import org.clustersim.topology.Topology;

/**
 * A scenario's training step simulated and measured: the one step run behind {@code run},
 * {@code whatif}, {@code plan}, {@code goodput}, the report and the validation tests. The step is
 * built with the scenario's step sequence ({@link #build}), the scenario's faults (plus any a
 * study adds) are applied, interference is modelled as the scenario says, and the run is measured
 * into {@link StepFigures}, so a figure means the same wherever it is reported and a study's
 * baseline is exactly what {@code run} reports.
 *
 * @param step    the training step
 * @param built   its task graph and pipeline bookkeeping
 * @param result  the simulation's result
 * @param figures the measured figures
 */
public record SimulatedStep(TrainingStep step, TrainingStep.Built built, Simulation.Result result,
                            StepFigures figures) {

    /** The task graph of {@code scenario}'s steps: {@code step} built with the scenario's step sequence. */
    public static TrainingStep.Built build(Scenario scenario, TrainingStep step) {
        return step.build(scenario.stepSequence());
    }

    /**
     * As {@link #build(Scenario, TrainingStep)}, its tasks keeping no names: for figures only (a
     * plan's candidates), where no trace or report shows a task by name.
     */
    public static TrainingStep.Built buildUnnamed(Scenario scenario, TrainingStep step) {
        return step.build(scenario.stepSequence(), false);
    }

    /**
     * Builds and simulates {@code step} (the scenario's) on its own topology with the scenario's
     * faults; {@code linkCounters} records each link's throughput over time even where the
     * scenario does not ask for it.
     */
    public static SimulatedStep of(Scenario scenario, TrainingStep step, boolean linkCounters) {
        return of(scenario, step, build(scenario, step), step.topology(),
                scenario.faultEvents(step.topology()), linkCounters || scenario.output().linkCounters());
    }

    /**
     * Simulates an already built step on {@code topology} (a copy of the scenario's cluster, so
     * that concurrent runs share no router caches) with {@code faults} (the scenario's and any a
     * study adds, resolved on that topology); {@code linkTracks} records each link's throughput
     * over time.
     */
    public static SimulatedStep of(Scenario scenario, TrainingStep step, TrainingStep.Built built, Topology topology,
                                   FaultEvents faults, boolean linkTracks) {
        Simulation.Result run = Simulation.run(built.graph(), topology, RunOptions.DEFAULT
                .withFidelity(scenario.fidelity()).withRouting(scenario.routing()).withKernel(scenario.kernel())
                .withLinkEvents(faults.links()).withDeviceEvents(faults.devices()).withLinkTracks(linkTracks)
                .withInterference(scenario.interference() ? step.interference(built.graph()) : Interference.NONE));
        return new SimulatedStep(step, built, run, StepFigures.of(scenario, step, built, run));
    }
}
