package org.clustersim.strategies.device;

/**
 * The memory-bound operations of a training step that a profile gives kernel counts for: what
 * streams tensors through HBM rather than running on tensor cores. Each knows its key in
 * profile files.
 */
public enum Op {
    /** Layer norm or RMSNorm. */
    NORM("norm"),
    /** Rotary position embedding of queries and keys. */
    ROTARY("rotary"),
    /** Bias, dropout and residual add after a block. */
    RESIDUAL("residual"),
    /** GELU or SwiGLU between the MLP's matrices. */
    ACTIVATION("activation"),
    /** The fused attention core (its kernels; its time comes from the attention tables). */
    ATTENTION("attention"),
    /** Scale, mask, softmax and dropout over a materialised score matrix (standard attention). */
    SCORES("scores"),
    /** MoE router: softmax, top-k, auxiliary loss. */
    ROUTER("router"),
    /** MoE token permutation and un-permutation. */
    PERMUTE("permute"),
    /** Word-embedding lookup (and its scatter-add gradient). */
    EMBEDDING("embedding"),
    /** Softmax cross-entropy over the vocabulary. */
    CROSS_ENTROPY("crossEntropy"),
    /** FP8 quantisation of a GEMM operand: cast, transpose, amax. */
    FP8_CAST("fp8Cast"),
    /** The optimizer step. */
    OPTIMIZER("optimizer");

    private final String key;

    Op(String key) {
        this.key = key;
    }

    /** The name in profile files. */
    public String key() {
        return key;
    }
}
