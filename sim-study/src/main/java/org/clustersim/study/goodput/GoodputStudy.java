package org.clustersim.study.goodput;

import java.util.List;

import org.clustersim.study.engine.TaskEngine;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.whatif.Cable;
import org.clustersim.study.whatif.Outcome;
import org.clustersim.study.whatif.WhatIfStudy;
import org.clustersim.core.reliability.FailureClass;
import org.clustersim.core.reliability.FailureRates;
import org.clustersim.core.reliability.LongRun;
import org.clustersim.topology.Topology;
import org.clustersim.topology.VertexKind;

/**
 * The goodput study of one scenario: its training step simulated once (the what-if study's
 * baseline, so the step time is what {@code run} prints), the cluster's failure classes counted
 * from its topology (GPUs, servers, scale-out cables and switches), and a {@link LongRun} at the
 * chosen checkpoint interval replicated with seeds ({@link Replications}), optionally after a
 * sweep of intervals around Young/Daly's. Made in two steps so the command can refuse a step
 * that the faults cut apart, and work too large to fit, before any replication runs.
 */
public final class GoodputStudy {
    private final Scenario scenario;
    private final GoodputInput input;
    private final Outcome step;
    private final List<FailureClass> classes;
    private final LongRun probe;

    private GoodputStudy(Scenario scenario, GoodputInput input, Outcome step, List<FailureClass> classes,
                         LongRun probe) {
        this.scenario = scenario;
        this.input = input;
        this.step = step;
        this.classes = classes;
        this.probe = probe;
    }

    /** Simulates {@code scenario}'s step and counts what can fail in its cluster. */
    public static GoodputStudy of(Scenario scenario, GoodputInput input) {
        WhatIfStudy study = new WhatIfStudy(scenario);
        Outcome step = study.run("baseline", "", List.of(), null);
        Topology t = study.topology();
        long cables = Cable.all(t).stream().filter(c -> !c.clazz().equals("nvlink") && !c.clazz().equals("gpu-nic"))
                .count();
        long switches = t.vertices().stream().filter(v -> v.kind() == VertexKind.SWITCH).count();
        List<FailureClass> classes = FailureRates.of(t.deviceCount(), scenario.cluster().nodes(), cables, switches,
                input.mtbfGpuH(), input.mtbfHostH(), input.mtbfLinkH(), input.mtbfSwitchH());
        LongRun probe = new LongRun(input.days() * 86_400, 1, input.checkpointCostS(), input.restartCostS(), classes);
        return new GoodputStudy(scenario, input, step, classes, probe);
    }

    /** The simulated step: {@link Outcome#failed()} when the scenario's faults cut the cluster apart. */
    public Outcome step() {
        return step;
    }

    /** What can fail, with counts and MTBFs. */
    public List<FailureClass> failureClasses() {
        return classes;
    }

    /**
     * Expected failure and checkpoint events of every replication (a sweep's intervals go down
     * to a quarter of Young/Daly's, so they count four times), for the work estimate.
     */
    public double expectedEvents() {
        double plannedS = input.interval() instanceof CheckpointInterval.Fixed f ? f.seconds()
                : probe.youngDalyIntervalS();
        double perReplication = input.days() * 86_400 * (probe.failureRate() + 1 / plannedS) + 1;
        double sweeps = input.interval() instanceof CheckpointInterval.Sweep ? Replications.SWEEP_POINTS * 4 : 1;
        return perReplication * input.replications() * (1 + sweeps);
    }

    /** Chooses the interval (sweeping if asked) and replicates the run at it on {@code tasks}. */
    public GoodputResult run(TaskEngine tasks) {
        Replications replications = new Replications(input.replications(), input.seed());
        List<Replications.SweepPoint> sweep = List.of();
        double intervalS;
        if (input.interval() instanceof CheckpointInterval.Fixed f) {
            intervalS = f.seconds();
        } else if (input.interval() instanceof CheckpointInterval.Sweep) {
            sweep = replications.sweep(tasks, probe);
            intervalS = Replications.best(sweep, probe.youngDalyIntervalS());
        } else {
            intervalS = probe.youngDalyIntervalS();
        }
        LongRun run = probe.withInterval(intervalS);
        List<LongRun.Outcome> outcomes = replications.of(tasks, List.of(run)).get(0);
        double stepS = step.stepTimeNs() / 1e9;
        double tokensPerStep = (double) scenario.training().globalBatch() * scenario.training().seqLen();
        return new GoodputResult(stepS, tokensPerStep, classes, run, sweep,
                Mean.of(outcomes.stream().mapToDouble(o -> o.interruptions()).toArray()),
                Mean.of(outcomes.stream().mapToDouble(LongRun.Outcome::effectiveFraction).toArray()),
                Mean.of(outcomes.stream().mapToDouble(o -> o.trainedS() / stepS * tokensPerStep).toArray()),
                Mean.of(outcomes.stream().mapToDouble(o -> o.checkpointingS() / run.durationS()).toArray()),
                Mean.of(outcomes.stream().mapToDouble(o -> o.restartingS() / run.durationS()).toArray()),
                Mean.of(outcomes.stream().mapToDouble(o -> o.lostS() / run.durationS()).toArray()));
    }
}
