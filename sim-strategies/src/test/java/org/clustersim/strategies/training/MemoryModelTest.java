package org.clustersim.strategies.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.clustersim.core.RunOptions;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.Timeline;
import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.clustersim.strategies.device.AttentionImpl;
import org.junit.jupiter.api.Test;

class MemoryModelTest {
    static final TransformerModel M = TrainingStepTest.SMALL;
    static final Topology NODE = SwitchedClusterSpec.dgxH100(1).build();

    /** A step of the small model on one server: 8 microbatches of 2 sequences, standard attention. */
    static LayoutBuilder step() {
        return TrainingStep.builder(M, NODE).batch(8, 2, 2048).kernels(Precision.BF16, AttentionImpl.STANDARD);
    }

    @Test
    void modelStatesFollowMixedPrecisionAdamAndZero() {
        TrainingStep plain = step().sizes(1, 1, 1, 8).build();
        double params = plain.stageParams(0);
        MemoryModel.States s = new MemoryModel(plain).states(0);
        assertEquals(2 * params, s.weights(), 1);
        assertEquals(4 * params, s.gradients(), 1, "fp32 main gradients: 18 bytes a parameter in all");
        assertEquals(12 * params, s.optimizer(), 1);
        MemoryModel.States z1 = new MemoryModel(step().sizes(1, 1, 1, 8).zero(1).build()).states(0);
        assertEquals(12 * params / 8, z1.optimizer(), 1);
        assertEquals(4 * params, z1.gradients(), 1);
        MemoryModel.States z2 = new MemoryModel(step().sizes(1, 1, 1, 8).zero(2).build()).states(0);
        assertEquals(4 * params / 8, z2.gradients(), 1);
        assertEquals(2 * params, z2.weights(), 1);
        MemoryModel.States z3 = new MemoryModel(step().sizes(1, 1, 1, 8).zero(3).build()).states(0);
        double layer = M.layerMatmulParams() + 2.0 * M.hidden();
        // the weight shard plus two gathered layers (in use and prefetched)
        assertEquals(2 * params / 8 + 4 * layer, z3.weights(), 1);
        // Megatron-FSDP's sharded main gradients plus its two unsharded gradient buffers (fp32)
        assertEquals(4 * params / 8 + 2 * 4 * layer, z3.gradients(), 1);
        assertEquals(12 * params / 8, z3.optimizer(), 1);
    }

    @Test
    void activationsFollowKorthikantiAndShrinkWithParallelismAndRecompute() {
        double s = 2048;
        double b = 2;
        double h = M.hidden();
        double a = M.heads();
        double perLayer = 34 * s * b * h + 5 * a * s * s * b;
        assertEquals(8 * perLayer, new MemoryModel(step().build()).activationBytes(0), 8);
        double tp = 10 * s * b * h + (24 * s * b * h + 5 * a * s * s * b) / 8;
        assertEquals(8 * tp, new MemoryModel(step().sizes(8, 1, 1, 1).build()).activationBytes(0), 8);
        assertEquals(8 * perLayer / 8, new MemoryModel(step().sizes(8, 1, 1, 1).sequenceParallel(true).build())
                .activationBytes(0), 8);
        assertEquals(8 * 2 * s * b * h, new MemoryModel(step().recompute(LayerCostModel.Recompute.FULL).build())
                .activationBytes(0), 8);
    }

    @Test
    void oneFOneBPeaksLowerThanGpipeWithoutBeingTold() {
        long gpipe = peak(step().sizes(1, 1, 8, 1).schedule(ScheduleKind.GPIPE.schedule(1)).build());
        long ofob = peak(step().sizes(1, 1, 8, 1).build());
        long perStage = new MemoryModel(step().sizes(1, 1, 8, 1).schedule(ScheduleKind.GPIPE.schedule(1)).build())
                .activationBytes(0);
        assertEquals(8 * perStage, gpipe, "GPipe holds all 8 microbatches on rank 0");
        assertEquals(8 * perStage, ofob, "1F1B holds p = 8 on rank 0 as well when m = p");
        long ofobLast = peak(step().sizes(1, 1, 8, 1).build(), 7);
        assertEquals(perStage, ofobLast, "the last stage of 1F1B holds one");
        long gpipeLast = peak(step().sizes(1, 1, 8, 1).schedule(ScheduleKind.GPIPE.schedule(1)).build(), 7);
        assertTrue(gpipeLast > ofobLast);
    }

    static long peak(TrainingStep s) {
        return peak(s, 0);
    }

    static long peak(TrainingStep s, int rank) {
        TrainingStep.Built built = s.build();
        Timeline t = Simulation.run(built.graph(), s.topology(), RunOptions.DEFAULT).timeline();
        long[][] live = built.pipelines().get(0).activationBytes(t, rank, new MemoryModel(s)::activationBytes);
        long max = 0;
        for (long v : live[1]) {
            max = Math.max(max, v);
        }
        return max;
    }

    /** Activation bytes of stage 0 (the small model's 8 layers) at TP 8 with sequence parallelism. */
    private static long tp8(Precision precision, AttentionImpl attention) {
        return new MemoryModel(TrainingStep.builder(M, NODE).batch(8, 2, 2048).kernels(precision, attention)
                .sizes(8, 1, 1, 1).sequenceParallel(true).build()).activationBytes(0);
    }

    /**
     * Transformer Engine keeps FP8 copies of the GEMM inputs it casts (linear.py,
     * layernorm_linear.py): the QKV and fc1 inputs (the norms' outputs, h wide) and fc2's input
     * (4 h wide) at 1 byte an element instead of 2; fused attention keeps its bf16 output, so
     * proj's FP8 copy (h wide) is held beside it.
     */
    @Test
    void fp8KeepsTransformerEnginesFp8CopiesOfTheGemmInputs() {
        double tokens = 2048 * 2;
        double h = M.hidden();
        assertEquals(h, M.attentionOutputWidth(), "the oracle below takes proj's input h wide");
        long bf16 = tp8(Precision.BF16, AttentionImpl.CUDNN);
        long fp8 = tp8(Precision.FP8, AttentionImpl.CUDNN);
        // per layer, over t = 8 (sequence parallel): norms' outputs 2 x (2 - 1), fc2's input 4 x (2 - 1), proj's copy -1
        double perLayer = tokens * h * (2 + 4 - 1) / 8;
        assertTrue(fp8 < bf16, fp8 + " bytes in fp8 against " + bf16 + " in bf16");
        assertEquals(8 * perLayer, bf16 - fp8, 8);
        // standard attention holds no bf16 copy of its output: proj's input shrinks like the others
        double unfused = tokens * h * (2 + 4 + 1) / 8;
        assertEquals(8 * unfused, tp8(Precision.BF16, AttentionImpl.STANDARD) - tp8(Precision.FP8,
                AttentionImpl.STANDARD), 8);
    }
}
