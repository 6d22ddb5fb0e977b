package org.clustersim.strategies.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;

import org.clustersim.strategies.cost.Fp8Recipe;
import org.clustersim.strategies.cost.KernelCosts;
import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.cost.LayerCostModel.Block;
import org.clustersim.strategies.cost.LayerCostModel.OpTime;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.cost.RecomputeModule;
import org.clustersim.strategies.device.DeviceProfiles;
import org.clustersim.strategies.model.AttentionShape;
import org.clustersim.strategies.model.LatentAttention;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;

/**
 * Recomputation by module (Megatron-core's recompute_modules) and the precision-aware optimizer:
 * which ops each module's recompute replays, what it frees, and optimizer bytes per parameter.
 */
class RecomputeModulesTest {
    /** DeepSeek-V3's shapes on 4 layers: 1 dense, 3 MoE. */
    static final TransformerModel DS = new TransformerModel("ds-4", 4, 7168, 128, 128, 18432,
            TransformerModel.FfnKind.SWIGLU, 129280, false, new TransformerModel.Experts(256, 8, 2048, 1, 1.0, 1, 4),
            AttentionShape.latent(LatentAttention.DEEPSEEK_V3));
    static final Topology NODE = SwitchedClusterSpec.dgxH100(1).build();
    static final KernelCosts COSTS = new KernelCosts(DeviceProfiles.bundled("h100-sxm"), Precision.FP8,
            Fp8Recipe.CURRENT, DeviceProfiles.bundled("h100-sxm").defaultAttention(), true, false, 2);

    static LayerCostModel cost(LayerCostModel.Recompute r, Set<RecomputeModule> modules) {
        return new LayerCostModel(DS, COSTS, 2, true, 1, 4096, r, 1, 8, 1, modules);
    }

    static double op(Block b, String name, boolean bi) {
        for (OpTime t : b.ops()) {
            if (t.op().equals(name)) {
                return bi ? t.biNs() : t.fNs();
            }
        }
        return 0;
    }

    @Test
    void mlaUpProjReplaysTheUpProjectionsAndRopeOfTheForward() {
        LayerCostModel none = cost(LayerCostModel.Recompute.NONE, Set.of());
        LayerCostModel up = cost(LayerCostModel.Recompute.SELECTIVE, Set.of(RecomputeModule.MLA_UP_PROJ));
        Block base = none.layer(3)[0];
        Block attn = up.layer(3)[0];
        // replayed: the forward's q up, kv up and rope, and the FP8 casts of the latents, nothing else
        Block replay = up.mlaUpProjection();
        double expected = op(base, "q up", false) + op(base, "kv up", false) + op(base, "rope", false)
                + op(replay, "fp8 cast", false);
        assertEquals(expected, replay.fNs(), 1e-6 * expected);
        assertEquals(base.biNs() + expected, attn.biNs(), 1e-6 * expected);
        assertEquals(expected, op(attn, "recompute mla_up_proj", true), 1e-6 * expected);
        assertEquals(base.fNs(), attn.fNs(), 0);
        assertEquals(base.wNs(), attn.wNs(), 0);
        assertEquals(0, op(attn, "recompute", true), "the attention core is not replayed");
        // the MLP blocks are untouched
        assertEquals(none.layer(3)[2].biNs(), up.layer(3)[2].biNs(), 0);
        assertEquals(none.layer(0)[1].biNs(), up.layer(0)[1].biNs(), 0);
    }

    @Test
    void mlpReplaysTheDenseMlpOnlyAndLeavesMoeLayersAlone() {
        LayerCostModel none = cost(LayerCostModel.Recompute.NONE, Set.of());
        LayerCostModel mlp = cost(LayerCostModel.Recompute.SELECTIVE, Set.of(RecomputeModule.MLP));
        Block dense = none.layer(0)[1];
        Block replayed = mlp.layer(0)[1];
        // norm, fc1, activation, fc2 and their casts: the dense block's forward less its residual add
        double expected = dense.fNs() - op(dense, "residual", false);
        assertEquals(dense.biNs() + expected, replayed.biNs(), 1e-6 * expected);
        assertEquals(dense.fFlops(), replayed.biFlops() - dense.biFlops(), 1e-6 * dense.fFlops());
        // "mlp" names the dense MLP submodule; an MoE layer's router and experts replay nothing
        for (int i = 0; i < 3; i++) {
            assertEquals(none.layer(3)[i].biNs(), mlp.layer(3)[i].biNs(), 0);
        }
    }

    @Test
    void theDefaultSelectiveModuleIsTheAttentionCoreAsBefore() {
        LayerCostModel before = new LayerCostModel(DS, COSTS, 2, true, 1, 4096, LayerCostModel.Recompute.SELECTIVE,
                1, 8, 1);
        LayerCostModel named = cost(LayerCostModel.Recompute.SELECTIVE, Set.of(RecomputeModule.CORE_ATTN));
        assertEquals(Set.of(RecomputeModule.CORE_ATTN), before.modules());
        assertEquals(before.layer(3)[0], named.layer(3)[0]);
        assertThrows(IllegalArgumentException.class, () -> cost(LayerCostModel.Recompute.FULL,
                Set.of(RecomputeModule.MLP)));
        assertThrows(IllegalArgumentException.class, () -> cost(LayerCostModel.Recompute.SELECTIVE,
                Set.of(RecomputeModule.MOE)));
        assertThrows(IllegalArgumentException.class, () -> new LayerCostModel(TrainingStepTest.SMALL, COSTS, 1, false,
                1, 2048, LayerCostModel.Recompute.SELECTIVE, 1, 1, 1, Set.of(RecomputeModule.MLA_UP_PROJ)));
    }

    static TrainingStep step(KernelCosts costs, LayerCostModel.Recompute r, Set<RecomputeModule> modules) {
        return TrainingStep.builder(DS, NODE).mesh(new Mesh(2, 1, 1, 4, 8, 1, Mesh.DEFAULT_ORDER)).zero(1)
                .sequenceParallel(true).batch(4, 1, 4096).kernels(costs).recompute(r).recomputeModules(modules)
                .build();
    }

    @Test
    void recomputedModulesFreeWhatTheirCheckpointsDiscard() {
        TrainingStep none = step(COSTS, LayerCostModel.Recompute.NONE, Set.of());
        TrainingStep up = step(COSTS, LayerCostModel.Recompute.SELECTIVE, Set.of(RecomputeModule.MLA_UP_PROJ));
        TrainingStep both = step(COSTS, LayerCostModel.Recompute.SELECTIVE,
                Set.of(RecomputeModule.MLA_UP_PROJ, RecomputeModule.MLP));
        double s = 4096;
        double t = 2;
        // per layer, the core's queries and keys (128 heads x 192) and values (128 x 128), bf16, over t
        double qkv = 2 * s * (128 * 192 + 128 * (192 + 128)) / t;
        assertEquals(4 * qkv, new MemoryModel(none).activationBytes(0) - new MemoryModel(up).activationBytes(0), 4);
        // mlp: the dense layer's 19 s b h over t (sequence parallelism) as an FP8 layer keeps it (COSTS is FP8):
        // Transformer Engine holds fc1's input (h wide) and fc2's (4 h) as 1-byte copies, 5 s b h less; the 3
        // MoE layers keep theirs
        double mlp = (19 - 5) * s * 7168 / t;
        assertEquals(mlp, new MemoryModel(up).activationBytes(0) - new MemoryModel(both).activationBytes(0), 4);
    }

    @Test
    void fp16LossScalingAddsTheGradientCopyAndTheUnscalePassOnlyInFp16() {
        KernelCosts fp16 = new KernelCosts(COSTS.device(), Precision.FP16, Fp8Recipe.DELAYED, COSTS.attention(), false,
                false, 2);
        KernelCosts fp16Fp32Grads = new KernelCosts(COSTS.device(), Precision.FP16, Fp8Recipe.DELAYED, COSTS.attention(),
                true, false, 4);
        KernelCosts bf16 = new KernelCosts(COSTS.device(), Precision.BF16, Fp8Recipe.DELAYED, COSTS.attention(), true,
                false, 2);
        // fp16 main gradients: copy to fp32 (2 read + 4 written), unscale and inf check (4 + 4)
        assertEquals(14, fp16.lossScalingBytesPerParam());
        // fp32 main gradients: .float() is the same tensor, only the unscale pass
        assertEquals(8, fp16Fp32Grads.lossScalingBytesPerParam());
        assertEquals(0, bf16.lossScalingBytesPerParam());
        assertEquals(0, COSTS.lossScalingBytesPerParam());
    }

    @Test
    void bf16MomentsMakeEightBytesOfOptimizerStateAndLighterAdam() {
        KernelCosts bf16 = new KernelCosts(COSTS.device(), Precision.FP8, Fp8Recipe.CURRENT, COSTS.attention(), true,
                false, 2, 2);
        assertEquals(12, COSTS.optimizerStateBytes());
        assertEquals(8, bf16.optimizerStateBytes());
        // fp32 master 4 + grad 4 + moments 2 x 4 read; master and moments written, bf16 weight: 30; bf16 moments 22
        assertEquals(30, COSTS.adamBytesPerParam());
        assertEquals(22, bf16.adamBytesPerParam());
        assertEquals(OptimizerStep.ADAM_BYTES_PER_PARAM, COSTS.adamBytesPerParam());
        TrainingStep fp32 = step(COSTS, LayerCostModel.Recompute.NONE, Set.of());
        TrainingStep half = step(bf16, LayerCostModel.Recompute.NONE, Set.of());
        MemoryModel.States a = new MemoryModel(fp32).states(0);
        MemoryModel.States b = new MemoryModel(half).states(0);
        // ZeRO 1: dense state over dp 4, expert state over edp = 2 x 4 / (1 x 8) = 1
        double dense = fp32.stageParams(0) - fp32.stageExpertParams(0);
        double experts = fp32.stageExpertParams(0);
        assertEquals(12 * (dense / 4 + experts), a.optimizer(), 1);
        assertEquals(8 * (dense / 4 + experts), b.optimizer(), 1);
        assertEquals(a.weights(), b.weights(), 0);
        assertEquals(a.gradients(), b.gradients(), 0);
        // the Adam task streams 22 bytes a parameter instead of 30
        long adam32 = adamNs(fp32);
        long adam16 = adamNs(half);
        assertTrue(Math.abs(adam16 - adam32 * 22.0 / 30) < 0.02 * adam32 + 5_000, adam16 + " vs " + adam32);
    }

    private static long adamNs(TrainingStep s) {
        var g = s.build().graph();
        for (int i = 0; i < g.taskCount(); i++) {
            if (g.task(i).name().equals("adam step") && g.task(i).work() instanceof
                    org.clustersim.core.engine.Work.Compute c) {
                return c.durationNs();
            }
        }
        throw new AssertionError("no adam step");
    }
}
