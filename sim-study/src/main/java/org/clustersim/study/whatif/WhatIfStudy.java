package org.clustersim.study.whatif;

import java.util.List;

import org.clustersim.study.engine.EmbeddedPool;
import org.clustersim.study.engine.Progress;
import org.clustersim.study.engine.TaskEngine;
import org.clustersim.study.scenario.Fault;
import org.clustersim.study.scenario.FaultEvents;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.SimulatedStep;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.input.InputException;
import org.clustersim.core.network.UnreachableException;
import org.clustersim.strategies.training.TrainingStep;
import org.clustersim.topology.Topology;

/**
 * Runs variants of one scenario that differ only in faults, each the scenario's step as
 * {@code run} simulates and measures it ({@link SimulatedStep}): the training step is built once
 * and its task graph shared (it is immutable); every run gets its own topology, so routers'
 * caches are never shared between threads. Variants are independent simulations and run in
 * parallel; results come back in the order the variants were given, whatever the thread
 * count, so a study's output depends only on its inputs.
 */
public final class WhatIfStudy {
    private final Scenario scenario;
    private final TrainingStep step;
    private final TaskGraph graph;
    private final TrainingStep.Built built;
    private final ThreadLocal<Topology> topologies;
    private final String text;

    public WhatIfStudy(Scenario scenario) {
        this(scenario, null);
    }

    /**
     * A study whose scenario was read from {@code text} (the content of {@code scenario.source()}):
     * its variants can also run on engines in other JVMs, which rebuild the study from the text.
     */
    public WhatIfStudy(Scenario scenario, String text) {
        this.text = text;
        this.scenario = scenario;
        this.step = scenario.trainingStep();
        this.built = SimulatedStep.build(scenario, step);
        this.graph = built.graph();
        this.topologies = ThreadLocal.withInitial(scenario::topology);
    }

    public Scenario scenario() {
        return scenario;
    }

    public TrainingStep step() {
        return step;
    }

    public TrainingStep.Built built() {
        return built;
    }

    /** The scenario's own topology (for names and link lists; not for concurrent runs). */
    public Topology topology() {
        return step.topology();
    }

    /**
     * One run with the scenario's faults plus {@code extra}; {@code timeline} receives the run when not null.
     *
     * @throws InputException when a slowed GPU belongs to a replica that is not
     *         simulated task by task (it would change nothing)
     */
    public Outcome run(String label, String linkClass, List<Fault> extra,
                       java.util.function.Consumer<SimulatedStep> timeline) {
        return run(label, linkClass, extra, timeline, false);
    }

    /**
     * As {@link #run(String, String, List, java.util.function.Consumer)}; {@code linkCounters}
     * records each link's throughput over time when the timeline is asked for (a report's heat
     * map), also where the scenario does not ask for it.
     */
    public Outcome run(String label, String linkClass, List<Fault> extra,
                       java.util.function.Consumer<SimulatedStep> timeline, boolean linkCounters) {
        Topology topology = topologies.get();
        for (Fault f : extra) {
            int device = f.target() == Fault.Target.GPU ? FaultEvents.deviceIndex(topology, f.name()) : -1;
            if (device >= 0 && !step.simulated(device)) {
                throw new InputException(f.path() + ": " + f.name() + " is in data-parallel replica "
                        + step.coordinates(device).dp() + ", and only replica 0 is simulated task by task "
                        + "(simulation.replicas: one), so slowing it would change nothing; slow a GPU of replica 0 "
                        + "(such as " + topology.device(step.device(0, 0, 0)).name() + ") or simulate all replicas");
            }
        }
        FaultEvents events = scenario.faultEvents(topology).plus(FaultEvents.resolve(extra, topology,
                scenario.source()));
        SimulatedStep result;
        try {
            result = SimulatedStep.of(scenario, step, built, topology, events,
                    timeline != null && (linkCounters || scenario.output().linkCounters()));
        } catch (RuntimeException e) {
            UnreachableException cut = unreachable(e);
            if (cut == null) {
                throw e;
            }
            return Outcome.failed(label, linkClass, cut.getMessage());
        }
        if (timeline != null) {
            timeline.accept(result);
        }
        return Outcome.of(label, linkClass, result.figures());
    }

    /** The "no route" at the root of a failed run, or null when it failed for another reason. */
    public static UnreachableException unreachable(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof UnreachableException u) {
                return u;
            }
        }
        return null;
    }

    /** A variant: a label, its link class (sweeps) and the faults it adds. */
    public record Variant(String label, String linkClass, List<Fault> faults) implements java.io.Serializable {
    }

    /**
     * Runs every variant on {@code threads} threads of this JVM, reporting each completion to {@code progress}.
     *
     * @return outcomes in the order of {@code variants}
     */
    public List<Outcome> runAll(List<Variant> variants, int threads, Progress progress) {
        try (TaskEngine pool = new EmbeddedPool(threads)) {
            return runAll(variants, pool, progress);
        }
    }

    /**
     * Runs every variant on {@code engine} (each variant a task), reporting each completion to
     * {@code progress}.
     *
     * @return outcomes in the order of {@code variants}
     */
    public List<Outcome> runAll(List<Variant> variants, TaskEngine engine, Progress progress) {
        try {
            return engine.map(variants, new VariantRun(this), progress);
        } finally {
            progress.finish();
        }
    }

    /** The scenario file's text, when the study was made from one: what a distributed task rebuilds it from. */
    String text() {
        return text;
    }
}
