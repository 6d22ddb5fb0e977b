package org.clustersim.strategies.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.clustersim.core.RunOptions;
import org.clustersim.core.Simulation;
import org.clustersim.strategies.cost.Bf16Layers;
import org.clustersim.strategies.cost.Fp8Recipe;
import org.clustersim.strategies.cost.KernelCosts;
import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.device.AttentionImpl;
import org.clustersim.strategies.device.DeviceProfile;
import org.clustersim.strategies.device.DeviceProfiles;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;

/**
 * MXFP8 and NVFP4 steps of the small dense model (8 layers, h 2048, ffn 8192) on one DGX B200:
 * step times in the order of the GEMM rates, what each layer keeps for its backward, and the
 * layers kept in bf16.
 */
class BlackwellNumericsStepTest {
    static final TransformerModel M = TrainingStepTest.SMALL;
    static final Topology NODE = SwitchedClusterSpec.dgxB200(1).build();
    static final DeviceProfile B200 = DeviceProfiles.bundled("b200");

    static KernelCosts costs(Precision p, Fp8Recipe recipe) {
        return new KernelCosts(B200, p, recipe, AttentionImpl.CUDNN, true, false, 4);
    }

    /** TP 8 with sequence parallelism, 8 microbatches of 2 sequences of 2048. */
    static LayoutBuilder step(Precision p, Fp8Recipe recipe) {
        return TrainingStep.builder(M, NODE).batch(8, 2, 2048).kernels(costs(p, recipe)).sizes(8, 1, 1, 1)
                .sequenceParallel(true);
    }

    /** Large GEMMs: one GPU, 4 microbatches of 4 sequences of 4096 tokens. */
    static long stepTime(Precision p, Fp8Recipe recipe) {
        TrainingStep s = TrainingStep.builder(M, SwitchedClusterSpec.dgxB200(1).build()).batch(4, 4, 4096)
                .kernels(costs(p, recipe)).sizes(1, 1, 1, 8).build();
        return Simulation.run(s.build().graph(), s.topology(), RunOptions.DEFAULT).timeline().makespan();
    }

    @Test
    void atLargeGemmsNvfp4IsFasterThanMxfp8AndMxfp8NoSlowerThanBf16() {
        long bf16 = stepTime(Precision.BF16, Fp8Recipe.DELAYED);
        long mxfp8 = stepTime(Precision.FP8, Fp8Recipe.MXFP8);
        long nvfp4 = stepTime(Precision.NVFP4, Fp8Recipe.DELAYED);
        assertTrue(nvfp4 < mxfp8 && mxfp8 <= bf16, "bf16 " + bf16 + ", mxfp8 " + mxfp8 + ", nvfp4 " + nvfp4 + " ns");
        // the casts cost something: MXFP8 is slower than per-tensor delayed scaling, which fuses more
        assertTrue(mxfp8 > stepTime(Precision.FP8, Fp8Recipe.DELAYED));
    }

    /**
     * Bytes a layer keeps below bf16 (per layer, over t = 8): the norms' outputs (2 h) and fc2's
     * input (4 h) as quantised copies of q bytes an element, and proj's quantised copy (h) beside
     * fused attention's bf16 output: (2 + 4)(2 - q) - q, times tokens x h / 8.
     */
    @Test
    void eachRecipeKeepsItsQuantisedCopiesWithTheirScales() {
        double tokens = 2048 * 2;
        double h = M.hidden();
        long bf16 = new MemoryModel(step(Precision.BF16, Fp8Recipe.DELAYED).build()).activationBytes(0);
        double mxfp8 = 1 + 1.0 / 32;       // fp8 byte and an E8M0 scale per 32
        double nvfp4 = 0.5 + 1.0 / 16;     // E2M1 nibble and an E4M3 scale per 16
        for (double[] c : new double[][] {{mxfp8, 0}, {nvfp4, 1}}) {
            double q = c[0];
            TrainingStep s = c[1] == 0 ? step(Precision.FP8, Fp8Recipe.MXFP8).build()
                    : step(Precision.NVFP4, Fp8Recipe.DELAYED).build();
            double perLayer = tokens * h * (6 * (2 - q) - q) / 8;
            assertEquals(8 * perLayer, bf16 - new MemoryModel(s).activationBytes(0), 8, "q = " + q);
        }
        // the first layer and the last two kept in bf16 keep bf16 tensors
        TrainingStep kept = step(Precision.NVFP4, Fp8Recipe.DELAYED).bf16Layers(new Bf16Layers(1, 2)).build();
        double perLayer = tokens * h * (6 * (2 - nvfp4) - nvfp4) / 8;
        assertEquals(5 * perLayer, bf16 - new MemoryModel(kept).activationBytes(0), 8);
    }

    @Test
    void theLayersKeptInBf16RunBf16GemmsWithoutCasts() {
        TrainingStep s = step(Precision.NVFP4, Fp8Recipe.DELAYED).bf16Layers(new Bf16Layers(1, 2)).build();
        LayerBlocks blocks = new LayerBlocks(s.layerCost(), s.numerics());
        LayerCostModel bf16 = step(Precision.BF16, Fp8Recipe.DELAYED).build().layerCost();
        for (int l = 0; l < M.layers(); l++) {
            boolean kept = l == 0 || l >= 6;
            LayerCostModel.Block mlp = blocks.kind(l).layer()[1];
            List<String> names = mlp.ops().stream().map(LayerCostModel.OpTime::op).toList();
            double casts = mlp.ops().stream().filter(o -> o.op().equals("nvfp4 cast")).mapToDouble(
                    LayerCostModel.OpTime::fNs).sum();
            if (kept) {
                assertEquals(0, casts, 0, "layer " + l + " " + names);
                assertEquals(bf16.mlpBlock().fNs(), mlp.fNs(), 1e-9, "layer " + l);
            } else {
                assertTrue(casts > 0, "layer " + l + " " + names);
                double fc1 = mlp.ops().stream().filter(o -> o.op().equals("fc1")).mapToDouble(
                        LayerCostModel.OpTime::fNs).sum();
                double bf16Fc1 = bf16.mlpBlock().ops().stream().filter(o -> o.op().equals("fc1")).mapToDouble(
                        LayerCostModel.OpTime::fNs).sum();
                assertTrue(fc1 < bf16Fc1, "layer " + l + ": fc1 " + fc1 + " against " + bf16Fc1 + " in bf16");
            }
        }
        // no layer kept: every layer casts
        TrainingStep none = step(Precision.NVFP4, Fp8Recipe.DELAYED).build();
        LayerBlocks all = new LayerBlocks(none.layerCost(), none.numerics());
        assertFalse(all.kind(0).layer()[1].ops().stream().noneMatch(o -> o.op().equals("nvfp4 cast")));
    }
}
