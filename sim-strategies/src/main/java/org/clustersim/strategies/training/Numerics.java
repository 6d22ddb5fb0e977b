package org.clustersim.strategies.training;

import java.util.Set;

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
 */
public record Numerics(KernelCosts kernels, LayerCostModel.Recompute recompute, Set<RecomputeModule> recomputeModules,
                       XlaRemat xlaRemat) {

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
    }
}
