package org.clustersim.cli.whatif;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.clustersim.cli.engine.EmbeddedPool;
import org.clustersim.cli.engine.Progress;
import org.clustersim.cli.engine.TaskEngine;
import org.clustersim.cli.scenario.Fault;
import org.clustersim.cli.scenario.FaultEvents;
import org.clustersim.cli.scenario.Scenario;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.input.InputException;
import org.clustersim.core.metrics.CommBreakdown;
import org.clustersim.core.metrics.DeviceUsage;
import org.clustersim.core.metrics.StepMetrics;
import org.clustersim.core.network.UnreachableException;
import org.clustersim.strategies.training.TrainingStep;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.topology.Topology;

/**
 * Runs variants of one scenario that differ only in faults: the training step is built once
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
        this.built = step.build();
        this.graph = built.graph();
        this.topologies = ThreadLocal.withInitial(() -> scenario.cluster().build());
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
                       java.util.function.Consumer<Simulation.Result> timeline) {
        return run(label, linkClass, extra, timeline, false);
    }

    /**
     * As {@link #run(String, String, List, java.util.function.Consumer)}; {@code linkCounters}
     * records each link's throughput over time when the timeline is asked for (a report's heat
     * map), also where the scenario does not ask for it.
     */
    public Outcome run(String label, String linkClass, List<Fault> extra,
                       java.util.function.Consumer<Simulation.Result> timeline, boolean linkCounters) {
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
        Simulation.Result result;
        try {
            result = Simulation.run(graph, topology, scenario.fidelity(), scenario.routing(), events.links(),
                    events.devices(), timeline != null && (linkCounters || scenario.output().linkCounters()),
                    scenario.interference() ? step.interference(graph) : org.clustersim.core.engine.Interference.NONE);
        } catch (RuntimeException e) {
            UnreachableException cut = unreachable(e);
            if (cut == null) {
                throw e;
            }
            return new Outcome(label, linkClass, 0, 0, 0, 0, Map.of(), new long[0], new long[0], cut.getMessage());
        }
        if (timeline != null) {
            timeline.accept(result);
        }
        return measure(label, linkClass, result);
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

    private Outcome measure(String label, String linkClass, Simulation.Result result) {
        StepMetrics m = StepMetrics.of(result.timeline());
        List<CommBreakdown> comm = CommBreakdown.of(result.timeline());
        double bubble = 0;
        double exposed = 0;
        Map<String, Long> byKind = new TreeMap<>();
        int n = 0;
        for (DeviceUsage u : m.devices()) {
            if (!step.simulated(u.device())) {
                continue;
            }
            n++;
            bubble += u.bubbleFraction();
            CommBreakdown c = comm.get(u.device());
            exposed += m.stepTimeNs() == 0 ? 0 : (double) c.exposedAnyNs() / m.stepTimeNs();
            c.exposedNs().forEach((k, v) -> byKind.merge(k, v, Long::sum));
        }
        int count = Math.max(1, n);
        Map<String, Long> meanByKind = new TreeMap<>();
        byKind.forEach((k, v) -> meanByKind.put(k, v / count));
        double seconds = m.stepTimeNs() / 1e9;
        double modelFlops = scenario.modelFlopsPerStep();
        double peak = Precision.BF16.peak(scenario.cluster().accelerator());
        double mfu = modelFlops / seconds / step.mesh().gpus() / peak;
        long[] bytes = new long[result.links().topology().links().size()];
        long[] busy = new long[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = result.links().bytes(i);
            busy[i] = result.links().busyNs(i);
        }
        return new Outcome(label, linkClass, m.stepTimeNs(), mfu, bubble / count, exposed / count, meanByKind, bytes,
                busy, null);
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
