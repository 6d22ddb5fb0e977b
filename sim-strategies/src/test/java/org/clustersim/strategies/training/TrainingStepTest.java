package org.clustersim.strategies.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.clustersim.core.RunOptions;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.metrics.CommBreakdown;
import org.clustersim.core.metrics.StepWindows;
import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.strategies.pipeline.PipelineSchedule;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.topology.SuperPodSpec;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.clustersim.strategies.device.AttentionImpl;
import org.clustersim.strategies.cost.KernelCosts;
import org.clustersim.strategies.device.DeviceProfiles;
import org.junit.jupiter.api.Test;

/** Behaviour a training-infrastructure engineer relies on, measured from simulated steps. */
class TrainingStepTest {
    static final TransformerModel SMALL = new TransformerModel("small", 8, 2048, 16, 16, 8192,
            TransformerModel.FfnKind.GELU, 32000, false);

    /**
     * A step of the small model on {@code t} with bf16 kernels and flash attention, the builder's
     * other defaults (no recomputation, default buckets, async sends, every replica simulated).
     */
    static LayoutBuilder small(Topology t) {
        return TrainingStep.builder(SMALL, t).kernels(Precision.BF16, AttentionImpl.CUDNN);
    }

    static Simulation.Result run(TrainingStep s) {
        return Simulation.run(s.build().graph(), s.topology(),
                RunOptions.DEFAULT.withRouting(Simulation.Routing.ADAPTIVE).withLinkTracks(false));
    }

    static long exposed(Timeline t, String kind) {
        long sum = 0;
        for (CommBreakdown c : CommBreakdown.of(t)) {
            sum += c.exposedNs().getOrDefault(kind, 0L);
        }
        return sum;
    }

    static TrainingStep split(Topology t, int... layers) {
        return small(t).sizes(1, 1, layers.length, 1).batch(8, 1, 2048).split(LayerSplit.of(SMALL.layers(), layers))
                .build();
    }

    @Test
    void unevenLayerSplitLoadsEachStageByItsLayers() {
        Topology node = SwitchedClusterSpec.dgxH100(1).build();
        Timeline e = run(small(node).sizes(1, 1, 4, 1).batch(8, 1, 2048).build()).timeline();
        Timeline u = run(split(node, 1, 3, 2, 2)).timeline();
        // ranks 1 (3 layers) and 2 (2 layers) carry no embedding or logits: busy time scales with layers
        double perLayer = u.computeBusy(2) / 2.0;
        assertEquals(3 * perLayer, u.computeBusy(1), 0.02 * perLayer * 3);
        assertEquals(u.computeBusy(2), e.computeBusy(2), 0.01 * e.computeBusy(2));
        assertTrue(u.computeBusy(0) < e.computeBusy(0), "rank 0 lost a layer");
        assertEquals(3 * SMALL.layerMatmulParams(), split(node, 1, 3, 2, 2).stageParams(1) - 6.0 * SMALL.hidden(), 1);
    }

    @Test
    void theHeaviestStageSetsThePaceOfThePipeline() {
        Topology node = SwitchedClusterSpec.dgxH100(1).build();
        // the last stage also computes the logits (about 1.3 layers of this model): it is the
        // bottleneck of an even split; moving one of its layers to stage 2 relieves it, piling
        // layers onto it makes it worse
        long even = run(small(node).sizes(1, 1, 4, 1).batch(8, 1, 2048).build()).timeline().makespan();
        long relieved = run(split(node, 2, 2, 3, 1)).timeline().makespan();
        long piled = run(split(node, 1, 1, 2, 4)).timeline().makespan();
        assertTrue(relieved < even && even < piled, relieved + " < " + even + " < " + piled);
    }

    static double exposedFraction(Timeline t, int gpus) {
        long sum = 0;
        for (CommBreakdown c : CommBreakdown.of(t)) {
            for (long ns : c.exposedNs().values()) {
                sum += ns;
            }
        }
        return (double) sum / gpus / t.makespan();
    }

    @Test
    void zeroThreeAtATinyBatchIsCommunicationBoundWhileTensorAndPipelineAreNot() {
        Topology fabric = SuperPodSpec.h100(1).build();
        // 16 GPUs on two servers, one sequence of 2048 tokens per GPU per step
        Timeline fsdpTiny = run(small(fabric).sizes(1, 1, 1, 16).zero(3).build()).timeline();
        // TP 2 x PP 8 with 16 microbatches of one sequence (TP 8 would be bound by its own
        // all-reduces on a model this small)
        Timeline tpPp = run(small(fabric).sizes(2, 1, 8, 1).batch(16, 1, 2048).build()).timeline();
        // the same FSDP layout with 16 sequences per microbatch: the gathers hide behind compute
        Timeline fsdpLarge = run(small(fabric).sizes(1, 1, 1, 16).zero(3).batch(1, 16, 2048).build()).timeline();
        double tiny = exposedFraction(fsdpTiny, 16);
        double tensorPipeline = exposedFraction(tpPp, 16);
        double large = exposedFraction(fsdpLarge, 16);
        assertTrue(tiny > 0.3, "FSDP at a tiny batch waits on its gathers: " + tiny);
        assertTrue(tiny > 2 * tensorPipeline, tiny + " vs TP+PP " + tensorPipeline);
        assertTrue(large < tiny / 2, "a larger batch hides the gathers: " + large + " vs " + tiny);
        assertTrue(exposed(fsdpTiny, "dp-comm") > 0 && exposed(tpPp, "dp-comm") == 0);
    }

    @Test
    void overlappedCommunicationAloneIsWhatTheWholeBreakdownMeasures() {
        Topology fabric = SuperPodSpec.h100(1).build();
        // FSDP at a large batch hides its gathers behind compute: overlap on every GPU; two steps
        // clip each GPU to its window of the last
        TrainingStep s = small(fabric).sizes(1, 1, 1, 16).zero(3).batch(1, 16, 2048).build();
        for (int steps = 1; steps <= 2; steps++) {
            TrainingStep.Built built = s.build(new StepSequence(steps, false));
            Timeline t = Simulation.run(built.graph(), s.topology(),
                    RunOptions.DEFAULT.withRouting(Simulation.Routing.ADAPTIVE).withLinkTracks(false)).timeline();
            StepWindows windows = StepWindows.of(t, built.firstTasks());
            List<CommBreakdown> whole = CommBreakdown.of(windows, windows.last());
            List<java.util.Map<String, Long>> overlapped = CommBreakdown.overlapped(windows, windows.last());
            assertEquals(whole.size(), overlapped.size());
            for (int d = 0; d < whole.size(); d++) {
                assertEquals(whole.get(d).overlappedNs(), overlapped.get(d), "GPU " + d + ", " + steps + " steps");
            }
            assertTrue(overlapped.get(0).getOrDefault("dp-comm", 0L) > 0, overlapped.get(0).toString());
        }
    }

    @Test
    void zeroThreeGathersEveryLayerPerMicrobatchAndReducesItsGradients() {
        Topology fabric = SuperPodSpec.h100(1).build();
        TaskGraph g = small(fabric).sizes(1, 1, 2, 4).zero(3).batch(4, 1, 2048).build().build().graph();
        int gathers = 0;
        int scatters = 0;
        for (int i = 0; i < g.taskCount(); i++) {
            String name = g.task(i).name();
            gathers += name.startsWith("fsdp all-gather") ? 1 : 0;
            scatters += name.startsWith("fsdp reduce-scatter") ? 1 : 0;
        }
        // per pipeline rank (2) and microbatch (4): each of its 4 layers gathered for F and for B
        assertEquals(2 * 4 * 4 * 2, gathers);
        assertEquals(2 * 4 * 4, scatters);
    }

    static TrainingStep context(Topology t, int cp, int seqLen) {
        return small(t).sizes(1, cp, 1, 1).batch(2, 1, seqLen).build();
    }

    static double executedFlops(TaskGraph g) {
        double sum = 0;
        for (int i = 0; i < g.taskCount(); i++) {
            if (g.task(i).work() instanceof org.clustersim.core.engine.Work.Compute c) {
                sum += c.flops();
            }
        }
        return sum;
    }

    @Test
    void contextParallelismSplitsALongSequenceAndGathersKeysAndValues() {
        Topology node = SwitchedClusterSpec.dgxH100(1).build();
        int seq = 32768;
        TrainingStep one = context(node, 1, seq);
        TrainingStep four = context(node, 4, seq);
        Timeline t1 = run(one).timeline();
        Timeline t4 = run(four).timeline();
        // the same work, spread over four GPUs
        assertEquals(executedFlops(t1.graph()), executedFlops(t4.graph()), 1e-6 * executedFlops(t1.graph()));
        assertEquals(t1.computeBusy(0) / 4.0, t4.computeBusy(3), 0.1 * t1.computeBusy(0) / 4);
        // the key/value gathers cost something, so four GPUs are not quite four times as fast
        long cpComm = exposed(t4, "cp-comm");
        assertTrue(cpComm > 0, "cp collectives on the critical path");
        assertTrue(t4.makespan() < t1.makespan() / 3.0 && t4.makespan() > t1.makespan() / 4.0,
                t1.makespan() + " -> " + t4.makespan());
        // a quarter of the sequence's activations per GPU
        assertEquals(new MemoryModel(one).activationBytes(0) / 4.0, new MemoryModel(four).activationBytes(0),
                0.01 * new MemoryModel(one).activationBytes(0));
    }

    /** TP 8 inside each of two servers, CP 2 across them: the K/V exchange crosses the network. */
    static TrainingStep crossServerContext(ContextParallel kind) {
        Topology two = SwitchedClusterSpec.dgxH100(2).build();
        return TrainingStep.builder(SMALL, two).sizes(8, 2, 1, 1).sequenceParallel(true).cpKind(kind)
                .batch(2, 1, 65536).kernels(KernelCosts.of(DeviceProfiles.bundled("h100-sxm"), Precision.BF16))
                .replicas(1).build();
    }

    @Test
    void ringAttentionHidesTheKeyValueTransfersBehindTheCore() {
        TrainingStep gather = crossServerContext(ContextParallel.ALL_GATHER);
        TrainingStep ring = crossServerContext(ContextParallel.RING);
        Timeline tg = run(gather).timeline();
        Timeline tr = run(ring).timeline();
        assertEquals(executedFlops(tg.graph()), executedFlops(tr.graph()), 1e-9 * executedFlops(tg.graph()));
        long overlapped = 0;
        for (CommBreakdown c : CommBreakdown.of(tr)) {
            overlapped += c.overlappedNs().getOrDefault("cp-comm", 0L);
        }
        assertTrue(overlapped > 0, "ring transfers run under the attention steps");
        assertTrue(exposed(tr, "cp-comm") < exposed(tg, "cp-comm") / 2,
                exposed(tr, "cp-comm") + " exposed with the ring vs " + exposed(tg, "cp-comm") + " gathering");
        assertTrue(tr.makespan() < tg.makespan(), tr.makespan() + " vs " + tg.makespan());
    }

    @Test
    void hybridShardingReducesInsideShardGroupsThenAcrossThem() {
        Topology two = SwitchedClusterSpec.dgxH100(2).build();
        TrainingStep full = TrainingStep.builder(SMALL, two).sizes(1, 1, 1, 16).zero(2)
                .kernels(KernelCosts.of(DeviceProfiles.bundled("h100-sxm"), Precision.BF16)).build();
        TrainingStep hybrid = TrainingStep.builder(SMALL, two).sizes(1, 1, 1, 16).zero(2).shardGroup(8)
                .kernels(KernelCosts.of(DeviceProfiles.bundled("h100-sxm"), Precision.BF16)).build();
        // ZeRO 2 state over the 8 ranks of a shard group instead of all 16
        MemoryModel.States f = new MemoryModel(full).states(0);
        MemoryModel.States h = new MemoryModel(hybrid).states(0);
        assertEquals(2 * f.optimizer(), h.optimizer(), 1e-6 * h.optimizer());
        assertEquals(2 * f.gradients(), h.gradients(), 1e-6 * h.gradients());
        TaskGraph g = hybrid.build().graph();
        int across = 0;
        for (int i = 0; i < g.taskCount(); i++) {
            var task = g.task(i);
            if (task.name()
                    .startsWith("dp-grad") && task.work() instanceof org.clustersim.core.engine.Work.Communication c) {
                boolean acrossShards = task.name().endsWith("across shards");
                across += acrossShards ? 1 : 0;
                for (var phase : c.phases()) {
                    for (var flow : phase.flows()) {
                        // shard groups are the two servers; the cross-shard all-reduce pairs GPU i with GPU i + 8
                        boolean sameServer = flow.srcDevice() / 8 == flow.dstDevice() / 8;
                        assertEquals(!acrossShards, sameServer, task.name() + ": " + flow);
                    }
                }
            }
        }
        assertTrue(across > 0, "every reduce-scatter is followed by an all-reduce across shard groups");
        // the scale-out network carries the shard only: less than the full-group reduction
        Simulation.Result rf = run(full);
        Simulation.Result rh = run(hybrid);
        assertTrue(rh.timeline().makespan() <= rf.timeline().makespan() * 1.02,
                rh.timeline().makespan() + " vs " + rf.timeline().makespan());
    }

    @Test
    void aStragglerStallsItsWholePipeline() {
        Topology node = SwitchedClusterSpec.dgxH100(1).build();
        TrainingStep s = small(node).sizes(1, 1, 4, 1).batch(16, 1, 2048).build();
        var graph = s.build().graph();
        Timeline healthy = Simulation.run(graph, node, RunOptions.DEFAULT.withLinkTracks(false))
                .timeline();
        Timeline slowed = Simulation.run(graph, node, RunOptions.DEFAULT.withLinkTracks(false)
                .withDeviceEvents(List.of(new Simulation.DeviceEvent(3, 0, 0.8)))).timeline();
        // the last stage (the logits make it the busiest, so its compute is the critical path of 1F1B)
        // needs 1.25x as long for every kernel
        long extra = slowed.computeBusy(3) - healthy.computeBusy(3);
        assertEquals(0.25 * healthy.computeBusy(3), extra, 1e-3 * healthy.computeBusy(3));
        long slowdown = slowed.makespan() - healthy.makespan();
        assertTrue(slowdown >= 0.9 * extra, slowdown + " ns slower for " + extra + " ns of extra stage compute");
        // the healthy stages do the same work and wait for it
        for (int d : new int[] {0, 1, 2}) {
            assertEquals(healthy.computeBusy(d), slowed.computeBusy(d));
            assertTrue(slowed.computeIdle(d) - healthy.computeIdle(d) >= 0.9 * slowdown, "stage " + d + " waits");
        }
        // a slowdown that starts after the step has ended changes nothing
        Timeline late = Simulation.run(graph, node, RunOptions.DEFAULT.withLinkTracks(false)
                .withDeviceEvents(List.of(new Simulation.DeviceEvent(3, healthy.makespan() + 1, 0.5)))).timeline();
        assertEquals(healthy.makespan(), late.makespan());
    }

    @Test
    void theLastStageHoldsTheLogitsWorkspace() {
        Topology node = SwitchedClusterSpec.dgxH100(1).build();
        TrainingStep s = small(node).sizes(1, 1, 4, 1).batch(8, 2, 2048).build();
        MemoryModel m = new MemoryModel(s);
        assertEquals(MemoryModel.FRAMEWORK_RESERVE, m.states(0).workspace(), 1);
        // fp32 logits and their gradient: 2 x 4 bytes x b s V
        assertEquals(MemoryModel.FRAMEWORK_RESERVE + 8.0 * 2 * 2048 * 32000, m.states(3).workspace(), 1);
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(ScheduleKind.class)
    void everyScheduleRunsAStepWithTiedEmbeddingsAndEachZeroStage(ScheduleKind kind) {
        TransformerModel tied = new TransformerModel("tied", 8, 1024, 16, 16, 4096, TransformerModel.FfnKind.GELU,
                32000, true);
        Topology node = SwitchedClusterSpec.dgxH100(1).build();
        for (int zero : new int[] {0, 1, 3}) {
            TrainingStep step = TrainingStep.builder(tied, node).kernels(Precision.BF16, AttentionImpl.CUDNN)
                    .sizes(1, 1, 2, 2).zero(zero).schedule(kind.schedule(kind == ScheduleKind.INTERLEAVED ? 2 : 1))
                    .batch(4, 1, 1024).build();
            TaskGraph g = step.build().graph();
            int embeddingSyncs = 0;
            for (int i = 0; i < g.taskCount(); i++) {
                embeddingSyncs += g.task(i).name().startsWith("embedding grad") ? 1 : 0;
            }
            // V shapes keep the embedding and the logits on rank 0; the others sync them once per replica
            boolean vShape = step.schedule().placement(2, 4).rank(0, step.stages() - 1) == 0;
            assertEquals(vShape ? 0 : 2, embeddingSyncs, kind + " zero " + zero);
            assertTrue(run(step).timeline().makespan() > 0);
        }
    }

    @Test
    void doublingDataParallelismAtFixedPerReplicaBatchKeepsTheStepNearlyFlat() {
        Topology fabric = SuperPodSpec.h100(1).build();
        // 32 microbatches per replica: the gradient all-reduce grows as 2(n-1)/n but hides behind the backward
        long two = run(small(fabric).sizes(8, 1, 2, 2).batch(32, 1, 2048).build()).timeline().makespan();
        long four = run(small(fabric).sizes(8, 1, 2, 4).batch(32, 1, 2048).build()).timeline().makespan();
        long eight = run(small(fabric).sizes(8, 1, 2, 8).batch(32, 1, 2048).build()).timeline().makespan();
        assertTrue(four <= two * 1.03 && eight <= four * 1.03, two + " / " + four + " / " + eight);
    }

    @Test
    void moreMicrobatchesShrinkTheBubbleAndRaiseThroughput() {
        Topology node = SwitchedClusterSpec.dgxH100(1).build();
        double previous = 0;
        for (int m : new int[] {2, 4, 8, 16}) {
            long ns = run(small(node).sizes(1, 1, 8, 1).batch(m, 1, 2048).build()).timeline().makespan();
            double tokensPerSecond = m * 2048.0 / ns;
            assertTrue(tokensPerSecond > previous, "m=" + m);
            previous = tokensPerSecond;
        }
    }

    @Test
    void tensorParallelCollectivesSitOnTheCriticalPath() {
        Topology node = SwitchedClusterSpec.dgxH100(1).build();
        Timeline tp8 = run(small(node).sizes(8, 1, 1, 1).batch(4, 1, 2048).build()).timeline();
        assertTrue(exposed(tp8, "tp-comm") > 0, "TP all-reduces leave compute idle");
        Timeline tp1 = run(small(node).sizes(1, 1, 8, 1).batch(4, 1, 2048).build()).timeline();
        assertEquals(0, exposed(tp1, "tp-comm"));
        // 8 layers x 4 microbatches x (2 forward + 2 backward all-reduces) per TP group
        TaskGraph g = small(node).sizes(8, 1, 1, 1).batch(4, 1, 2048).build().build().graph();
        int collectives = 0;
        for (int i = 0; i < g.taskCount(); i++) {
            if (g.task(i).category().equals("tp-comm")) {
                collectives++;
            }
        }
        assertEquals(8 * 4 * 4, collectives);
    }

    @Test
    void bucketsLaunchedDuringTheBackwardHideGradientTraffic() {
        Topology fabric = SuperPodSpec.h100(1).build();
        Timeline overlapped = run(small(fabric).sizes(8, 1, 1, 4).batch(2, 1, 2048).build()).timeline();
        Timeline after = run(small(fabric).sizes(8, 1, 1, 4).batch(2, 1, 2048).overlapGradReduce(false).build())
                .timeline();
        assertTrue(exposed(overlapped, "dp-comm") < exposed(after, "dp-comm"),
                exposed(overlapped, "dp-comm") + " vs " + exposed(after, "dp-comm"));
        assertTrue(overlapped.makespan() < after.makespan());
    }

    @Test
    void zeroOneReduceScattersGradientsAndGathersWeights() {
        Topology fabric = SuperPodSpec.h100(1).build();
        TaskGraph g = small(fabric).sizes(8, 1, 1, 4).zero(1).batch(2, 1, 2048).build().build().graph();
        long rs = 0;
        long ag = 0;
        for (int i = 0; i < g.taskCount(); i++) {
            String name = g.task(i).name();
            rs += name.startsWith("dp-grad reducescatter") ? 1 : 0;
            ag += name.startsWith("dp-param all-gather") ? 1 : 0;
        }
        assertTrue(rs > 0, "gradient reduce-scatter buckets");
        assertEquals(8, ag, "one weight all-gather per TP rank");
    }
}
