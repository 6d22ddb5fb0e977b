package org.clustersim.strategies.training;

import java.util.Set;

import org.clustersim.strategies.cost.Bf16Layers;
import org.clustersim.strategies.cost.KernelCosts;
import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.cost.RecomputeModule;

/**
 * What a step's kernels cost and what it recomputes.
 *
 * @param kernels          the GPU's device profile, the GEMM precision, the FP8 recipe, the
 *                         attention implementation, the gradient and Adam moment dtypes
 * @param recompute        activation recomputation
 * @param recomputeModules under selective recomputation, the modules Megatron-core's
 *                         {@code recompute_modules} names ({@link RecomputeModule}; empty: the
 *                         attention core, its default); empty otherwise
 * @param xlaRemat         the MaxText remat policy XLA keeps memory by on a TPU mesh
 *                         ({@link XlaMemory}); null for a Megatron-style (GPU) step
 * @param bf16Layers       the layers a low-precision recipe keeps in bf16 ({@link Bf16Layers})
 */
public record Numerics(KernelCosts kernels, LayerCostModel.Recompute recompute, Set<RecomputeModule> recomputeModules,
                       XlaRemat xlaRemat, Bf16Layers bf16Layers) {

    /** Every layer at the kernels' precision. */
    public Numerics(KernelCosts kernels, LayerCostModel.Recompute recompute, Set<RecomputeModule> recomputeModules,
                    XlaRemat xlaRemat) {
        this(kernels, recompute, recomputeModules, xlaRemat, Bf16Layers.NONE);
    }

    /** A Megatron-style step's numerics (no XLA remat policy). */
    public Numerics(KernelCosts kernels, LayerCostModel.Recompute recompute, Set<RecomputeModule> recomputeModules) {
        this(kernels, recompute, recomputeModules, null);
    }

    public Numerics {
        java.util.Objects.requireNonNull(kernels, "kernels");
        if (recompute == null) {
            recompute = LayerCostModel.Recompute.NONE;
        }
        recomputeModules = LayerCostModel.recomputedModules(recompute, recomputeModules == null ? Set.of()
                : recomputeModules);
        if (bf16Layers == null) {
            bf16Layers = Bf16Layers.NONE;
        }
    }

    /** Whether layer {@code l} of {@code layers} runs its GEMMs in bf16 while the step's precision is lower. */
    public boolean bf16Layer(int l, int layers) {
        return kernels.quantised() && bf16Layers.contains(l, layers);
    }
}
