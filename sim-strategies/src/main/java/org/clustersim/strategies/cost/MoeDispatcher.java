package org.clustersim.strategies.cost;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which of Megatron-core's MoE token dispatchers moves an MoE layer's tokens (the scenario's
 * {@code parallelism.moeDispatcher}; {@code megatron/core/transformer/moe/token_dispatcher.py}).
 * They differ in the memory-bound kernels around the token exchange and in what the host waits
 * for; the exchange itself is the all-to-all either way (its algorithm: {@code allToAll}).
 */
public enum MoeDispatcher {
    /**
     * {@code MoEAlltoAllTokenDispatcher} with {@code moe_permute_fusion}: the per-expert token
     * counts all-gathered over the EP group, copied to the host and waited for
     * ({@code cuda_sync_point} "before_ep_alltoall": the split sizes of the NCCL all-to-all must
     * be host integers); the tokens permuted by expert (Transformer Engine's fused
     * {@code moe_permute}), the all-to-all, then with several local experts the received chunks
     * sorted by local expert ({@code sort_chunks_by_idxs}); the reverse on the way back
     * (unsort, all-to-all, {@code moe_unpermute} weighting by the probabilities).
     */
    ALLTOALL("alltoall", true, true, true, true),
    /**
     * The flex dispatcher on DeepEP's normal kernels ({@code _DeepepManager}): the dispatch
     * kernel exchanges the layout itself (no count all-gather) and returns the received counts
     * per expert to the host (DeepEP's normal kernels wait on the host for them); the received
     * tokens are then permuted by local expert, and unpermuted before the combine kernel.
     */
    DEEPEP("deepep", false, false, false, true),
    /**
     * The flex dispatcher on HybridEP with {@code moe_permute_fusion_into_hybridep} (Megatron-Bridge's
     * current H100 Qwen3 recipe): the permutation is fused into the dispatch and combine kernels;
     * without an expert capacity the permuted size is read back to the host
     * ({@code tokens_per_expert.sum()}), one synchronisation per layer.
     */
    HYBRIDEP("hybridep", false, false, false, false);

    private final String id;
    private final boolean countExchange;
    private final boolean permutesBeforeExchange;
    private final boolean sortsChunks;
    private final boolean permuteKernels;

    MoeDispatcher(String id, boolean countExchange, boolean permutesBeforeExchange, boolean sortsChunks,
                  boolean permuteKernels) {
        this.id = id;
        this.countExchange = countExchange;
        this.permutesBeforeExchange = permutesBeforeExchange;
        this.sortsChunks = sortsChunks;
        this.permuteKernels = permuteKernels;
    }

    /** The name in scenario files. */
    public String id() {
        return id;
    }

    /** Whether the per-expert token counts are all-gathered over the EP group before the dispatch. */
    public boolean exchangesCounts() {
        return countExchange;
    }

    /** Whether the tokens are permuted by expert on the sending GPU (else after they arrive). */
    public boolean permutesBeforeExchange() {
        return permutesBeforeExchange;
    }

    /** Whether the received chunks are sorted by local expert (and unsorted before the combine). */
    public boolean sortsChunks() {
        return sortsChunks;
    }

    /** Whether permutation and un-permutation run as kernels of their own (else inside the exchange). */
    public boolean permuteKernels() {
        return permuteKernels;
    }

    /** Every dispatcher by its scenario name, in declaration order. */
    public static Map<String, MoeDispatcher> byId() {
        Map<String, MoeDispatcher> m = new LinkedHashMap<>();
        for (MoeDispatcher d : values()) {
            m.put(d.id, d);
        }
        return m;
    }
}
