package org.clustersim.strategies.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.clustersim.core.RunOptions;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.Interference;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.metrics.CommBreakdown;
import org.clustersim.strategies.cost.KernelCosts;
import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.device.CommKernels;
import org.clustersim.strategies.device.DeviceProfiles;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;

/**
 * Megatron-core's TP communication overlap on one DGX H100 (TP 8, sequence parallelism, one
 * microbatch of 4096 tokens through two Llama-3-70B-sized layers), against expectations reasoned out by hand from the
 * userbuffers pipeline: what must wait for what, what hides, and how much a kernel beside an
 * SM-driven transfer is slowed.
 */
class TensorParallelOverlapTest {
    private static final Topology NODE = SwitchedClusterSpec.dgxH100(1).build();
    private static final CommKernels H100 = DeviceProfiles.bundled("h100-sxm").commKernels();
    /** Two Llama-3-70B-like layers: GEMMs of 512-1024 rows per chunk take longer than their transfers. */
    private static final TransformerModel LLAMA = new TransformerModel("two-70b-layers", 2, 8192, 64, 8, 28672,
            TransformerModel.FfnKind.SWIGLU, 32000, false);

    private static TrainingStep step(boolean tpCommOverlap) {
        return TrainingStep.builder(LLAMA, NODE).sizes(8, 1, 1, 1).sequenceParallel(true).batch(1, 1, 4096)
                .kernels(KernelCosts.of(DeviceProfiles.bundled("h100-sxm"), Precision.BF16)).replicas(1)
                .tpCommOverlap(tpCommOverlap).build();
    }

    private record Run(TaskGraph graph, Timeline timeline) {
        int task(String suffix) {
            for (int t = 0; t < graph.taskCount(); t++) {
                if (graph.task(t).name().endsWith(suffix)) {
                    return t;
                }
            }
            throw new AssertionError("no task named ..." + suffix);
        }

        /** The last task so named (the backward's, when the forward has one of the same name). */
        int lastTask(String suffix) {
            for (int t = graph.taskCount() - 1; t >= 0; t--) {
                if (graph.task(t).name().endsWith(suffix)) {
                    return t;
                }
            }
            throw new AssertionError("no task named ..." + suffix);
        }

        long duration(int t) {
            return timeline.end(t) - timeline.start(t);
        }

        long tp(boolean exposed) {
            long sum = 0;
            for (CommBreakdown c : CommBreakdown.of(timeline)) {
                sum += (exposed ? c.exposedNs() : c.overlappedNs()).getOrDefault("tp-comm", 0L);
            }
            return sum;
        }
    }

    private static Run run(boolean tpCommOverlap, boolean interference) {
        TrainingStep s = step(tpCommOverlap);
        TaskGraph g = s.build().graph();
        Interference i = interference ? s.interference(g) : Interference.NONE;
        return new Run(g, Simulation.run(g, NODE,
                RunOptions.DEFAULT.withLinkTracks(false).withInterference(i)).timeline());
    }

    @Test
    void withoutOverlapEveryTensorParallelCollectiveIsExposed() {
        Run r = run(false, true);
        assertTrue(r.tp(true) > 0);
        // the collectives sit between the blocks; only the very last, returning layer 0's input
        // gradient (which nothing on the GPU waits for), runs beside the Adam step, on all 8 GPUs
        int lastRs = r.lastTask("tp-rs B mb0 L0 attn");
        assertEquals(8 * r.duration(lastRs), r.tp(false));
    }

    @Test
    void theRingExchangeHidesBehindTheGemmChunksItFeeds() {
        Run r = run(true, false);
        // a ring step moves 1/8 of b s h (8 MB) in about 20 us; each fc1 chunk computes longer, so
        // chunk k + 1 follows chunk k without a gap once chunk 0 (local rows) has started the ring
        String fc1 = " L1 mlp fc1 ";
        for (int k = 2; k <= 8; k++) {
            int prev = r.task(fc1 + (k - 1) + "/8");
            int next = r.task(fc1 + k + "/8");
            int step = r.task(" L1 mlp fc1 tp-ring " + (k - 1));
            assertTrue(r.timeline().end(step) <= r.timeline().start(next), "chunk " + k + " waits for its rows");
            assertEquals(r.timeline().end(prev), r.timeline().start(next), "chunk " + k + " follows without a gap");
            assertTrue(r.duration(step) < r.duration(prev), "the step is shorter than the chunk it hides behind");
        }
    }

    @Test
    void onlyTheLastPipelinedReduceScatterChunkIsExposedInTheForward() {
        Run r = run(true, false);
        String mlp = " L1 mlp";
        int post = r.task(mlp + " post");
        int lastRs = r.task(mlp + " tp-rs 4/4");
        int lastSplit = r.task(mlp + " fc2 4/4");
        // the residual waits for the last chunk's reduce-scatter, which starts when the last split ends
        assertEquals(r.timeline().end(lastSplit), r.timeline().start(lastRs));
        assertEquals(r.timeline().end(lastRs), r.timeline().start(post));
        // the earlier chunks' reduce-scatters ran under the next split
        for (int i = 1; i <= 3; i++) {
            int rs = r.task(mlp + " tp-rs " + i + "/4");
            int nextSplit = r.task(mlp + " fc2 " + (i + 1) + "/4");
            assertTrue(r.timeline().end(rs) <= r.timeline().end(nextSplit), "chunk " + i + " hides under split " + (i + 1));
        }
    }

    @Test
    void mostTensorParallelCommunicationHidesWithOverlap() {
        Run off = run(false, true);
        Run on = run(true, true);
        assertTrue(on.tp(false) > 2 * on.tp(true), "overlapped " + on.tp(false) + " ns vs exposed " + on.tp(true));
        assertTrue(on.timeline().makespan() < off.timeline().makespan(),
                "hiding the collectives shortens the step: " + on.timeline().makespan() + " vs "
                        + off.timeline().makespan());
    }

    @Test
    void pipelinedSplitsRunOnTheSmsTheMarginLeavesAndTheirReduceScattersTakeOnlyHbm() {
        Run free = run(true, false);
        String mlp = " L1 mlp";
        // TE launches the pipelined fc2 on 132 - 16 SMs throughout: a split of 1024 rows x 8192
        // (256 tiles of 128 x 256) by k = 28672 / 8 takes 132 / 116 of its time on all SMs,
        // the first split (nothing beside it yet) as much as the others
        double alone = KernelCosts.of(DeviceProfiles.bundled("h100-sxm"), Precision.BF16).gemm(1024, 8192, 3584);
        for (int i = 1; i <= 4; i++) {
            assertEquals(Math.round(alone * 132 / 116), free.duration(free.task(mlp + " fc2 " + i + "/4")), 1,
                    "split " + i);
        }
        Run r = run(true, true);
        int rs1 = r.task(mlp + " tp-rs 1/4");
        int split2 = r.task(mlp + " fc2 2/4");
        // the reduce-scatter's 16 SMs are the margin's: beside the split it takes its HBM share only
        long beside = Math.min(r.timeline().end(rs1), r.timeline().end(split2)) - r.timeline().start(split2);
        assertTrue(beside > 0, "the first reduce-scatter runs while the second split computes");
        assertEquals(beside * H100.nvlink().hbmShare(), r.timeline().interferenceNs(split2), 1e-6 * beside);
        // and the ring exchange's single SM costs an fc1 chunk (on every SM) 1/132 of the time beside it
        // (the steps run back to back from the first chunk on: userbuffers hold every chunk)
        int chunk2 = r.task(mlp + " fc1 2/8");
        long ringBeside = 0;
        for (int k = 1; k < 8; k++) {
            int ring = r.task(mlp + " fc1 tp-ring " + k);
            ringBeside += Math.max(0, Math.min(r.timeline().end(ring), r.timeline().end(chunk2))
                    - Math.max(r.timeline().start(ring), r.timeline().start(chunk2)));
        }
        assertTrue(ringBeside > 0);
        assertEquals(ringBeside / 132.0, r.timeline().interferenceNs(chunk2), 1e-6 * ringBeside);
        assertEquals(0, free.timeline().interferenceNs(free.task(mlp + " fc2 2/4")));
        assertTrue(free.duration(free.task(mlp + " fc2 2/4")) < r.duration(split2), "the stretch shows in the slice");
    }

    @Test
    void smallGemmsWhoseTilesFitOnTheSmsLeftLoseNothingToTheMargin() {
        // 96 tiles fit on 116 SMs; 256 spread 132 / 116 longer; 120 tiles: 120 / 116 of one wave
        assertEquals(1, TensorParallelOverlap.marginStretch(1024, 3072, 132, 116), 1e-12);
        assertEquals(132.0 / 116, TensorParallelOverlap.marginStretch(1024, 8192, 132, 116), 1e-12);
        assertEquals(120.0 / 116, TensorParallelOverlap.marginStretch(1920, 2048, 132, 116), 1e-12);
    }

    @Test
    void backwardReduceScattersTheInputGradientUnderTheWeightGradient() {
        Run r = run(true, false);
        String at = " L1 mlp";
        int dgrad = r.task(at + " fc1 dgrad");
        int rs = r.task(at + " tp-rs bulk");
        int wgrad = r.task(at + " fc1 wgrad");
        int pre = r.lastTask(at + " pre");
        assertEquals(r.timeline().end(dgrad), r.timeline().start(rs), "the reduce-scatter starts with the gradient");
        assertTrue(r.timeline().start(wgrad) < r.timeline().end(rs), "the weight gradient computes beside it");
        assertEquals(Math.max(r.timeline().end(rs), r.timeline().end(wgrad)), r.timeline().start(pre),
                "the norm's backward waits for both");
    }
}
