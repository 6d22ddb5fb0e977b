package org.clustersim.study.plan;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

import org.clustersim.study.scenario.Scenario;
import org.clustersim.strategies.cost.RecomputeModule;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.strategies.training.ContextParallel;
import org.clustersim.strategies.training.LayoutBuilder;
import org.clustersim.strategies.training.ShardingOptions;
import org.clustersim.strategies.training.StepSequence;
import org.clustersim.strategies.training.TrainingStep;
import org.clustersim.strategies.training.Zero3Impl;
import org.clustersim.topology.Topology;

/**
 * The training steps of a plan's layouts built straight from one scenario read once (the probe:
 * the base with some layout written in) and its cluster built once, without writing and reading
 * each layout's YAML: the layout's fields replace the probe's as {@link BaseScenario#scenarioText}
 * writes them, its neutral values taking what the base states ({@link BaseScenario.Stated}). This
 * is how a plan screens hundreds of thousands of layouts; the layouts it then simulates are read
 * from their own files, so a step that differs here can only move a layout in the screening, never
 * change a simulated result. ZeRO-3 takes its framework's defaults for the reshard and reduce
 * type; the layout rules the step builder enforces reject what they reject here too.
 */
final class LayoutSteps {
    private final Scenario probe;
    private final Topology topology;
    private final org.clustersim.strategies.cost.KernelCosts kernels;
    private final BaseScenario.Stated stated;
    private final int layers;

    /**
     * @param probe   a candidate's scenario as read
     * @param stated  what the base states of the options layouts leave to it
     * @param layers  the model's layers (for the uneven split the files write)
     */
    LayoutSteps(Scenario probe, BaseScenario.Stated stated, int layers) {
        this.probe = probe;
        this.topology = probe.topology();
        // the kernels depend on the numerics alone, which no layout changes
        this.kernels = probe.kernelCosts();
        this.stated = stated;
        this.layers = layers;
    }

    /** The probe's cluster, built once. */
    Topology topology() {
        return topology;
    }

    /** The probe scenario. */
    Scenario probe() {
        return probe;
    }

    /**
     * Layout {@code l}'s scenario: the probe's with the layout's parallelism, schedule and training
     * fields.
     *
     * @throws IllegalArgumentException where a layout rule is broken
     */
    Scenario scenario(Layout l) {
        Scenario.Parallelism base = probe.parallelism();
        boolean experts = probe.model().experts() != null;
        int etp = l.etp() > 0 ? l.etp() : stated.etp() != null && experts ? stated.etp() : l.tp();
        LayoutBuilder b = org.clustersim.strategies.training.Layout.builder().layout(base.layout())
                .sizes(l.tp(), l.cp(), l.pp(), l.dp()).experts(experts ? l.ep() : 1, experts ? etp : l.tp())
                .zero(l.zero())
                .sharding(l.zero() == 3 ? ShardingOptions.of(l.zero3Impl().isEmpty() ? Zero3Impl.DEFAULT
                        : Zero3Impl.byId().get(l.zero3Impl())) : ShardingOptions.defaults())
                .sequenceParallel(stated.sequenceParallel() != null ? stated.sequenceParallel() : l.tp() > 1)
                .cpKind(cpKind(l))
                .bucketBytes(l.bucketMB() > 0 ? Math.round(l.bucketMB() * 1e6) : stated.bucketMB() != null
                        ? Math.round(stated.bucketMB() * 1e6)
                        : TrainingStep.defaultBucketBytes(l.dp() * l.cp(), probe.training().mainGradBytes()))
                .tpCommOverlap(l.tpOverlap() || stated.tpCommOverlap());
        if (l.zero() != 3) {
            b.shardGroup(l.zero() == 0 ? 0 : base.layout().zero().shardGroup());
        }
        int[] split = BaseScenario.split(layers, l.pp() * (l.schedule().equals("dualpipe") ? 1 : l.vp()));
        boolean gather = l.overlapParamGather() || stated.overlapParamGather() && (l.zero() == 1 || l.zero() == 2);
        ScheduleKind kind = ScheduleKind.byId(l.schedule()).orElseThrow(
                () -> new IllegalArgumentException("unknown schedule " + l.schedule()));
        // as the written file: the base's gather with the optimizer step only where Megatron allows it
        boolean withOptimizerStep = base.overlapParamGatherWithOptimizerStep() && gather
                && kind == ScheduleKind.INTERLEAVED;
        Scenario.Parallelism par = new Scenario.Parallelism(b.layout(), l.vp(), split, gather,
                base.alignParamGather(), withOptimizerStep, base.overlapMoeExpertParallelComm());
        Scenario.Training t = probe.training();
        Scenario.Recompute recompute = Scenario.Recompute.valueOf(l.recompute().toUpperCase(Locale.ROOT));
        Set<RecomputeModule> modules = modules(l, recompute);
        int offload = l.offloadLayers() > 0 ? l.offloadLayers()
                : l.pp() == 1 && recompute == Scenario.Recompute.NONE ? stated.cpuOffloadLayers() : 0;
        Scenario.Training training = new Scenario.Training(t.globalBatch(), l.mb(), t.seqLen(), t.precision(),
                t.fp8Recipe(), recompute, t.gradAccumulationFusion(), t.fp8ParamGather(), t.mainGradBytes(), modules,
                t.adamMomentBytes(), t.xlaRemat(), t.bf16Layers(), offload, t.cudaGraphs());
        return new Scenario(probe.name(), probe.source(), probe.cluster(), probe.device(), probe.model(),
                probe.attention(), probe.blockingSends(), par, kind, training, probe.fidelity(), probe.routing(),
                probe.faults(), false, probe.allowOom(), probe.interference(), probe.steps(), probe.kernel(),
                probe.output(), probe.host());
    }

    /**
     * Layout {@code l}'s step on the shared cluster.
     *
     * @throws IllegalArgumentException if the schedule cannot run the step's microbatches on its stages
     */
    TrainingStep step(Scenario scenario) {
        TrainingStep step = scenario.trainingStep(topology, kernels);
        step.schedule().validate(step.pp(), step.microbatches());
        return step;
    }

    /** How the scenario's step hands its weights to the next (the param-gather overlap). */
    static StepSequence sequence(Scenario scenario) {
        return scenario.stepSequence();
    }

    private ContextParallel cpKind(Layout l) {
        String id = !l.cpVariant().isEmpty() ? l.cpVariant() : l.cp() > 1 && stated.cpVariant() != null
                ? stated.cpVariant() : "all-gather";
        return id.equals("ring") ? ContextParallel.RING : ContextParallel.ALL_GATHER;
    }

    private Set<RecomputeModule> modules(Layout l, Scenario.Recompute recompute) {
        if (recompute != Scenario.Recompute.SELECTIVE) {
            return Set.of();
        }
        java.util.List<String> ids = !l.recomputeModules().isEmpty() ? java.util.List.of(l.recomputeModules()
                .split("\\+")) : stated.recomputeModules();
        if (ids == null || ids.isEmpty()) {
            return Set.of();
        }
        Set<RecomputeModule> out = EnumSet.noneOf(RecomputeModule.class);
        for (String id : ids) {
            out.add(RecomputeModule.byId(id).orElseThrow(() -> new IllegalArgumentException(
                    "unknown recompute module " + id)));
        }
        return out;
    }
}
