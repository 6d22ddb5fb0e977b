package org.clustersim.strategies.model;

/**
 * Multi-head latent attention (DeepSeek-AI, "DeepSeek-V2", arXiv 2405.04434, section 2.1;
 * "DeepSeek-V3 Technical Report", arXiv 2412.19437, section 2.1.1): queries and keys/values
 * are compressed to low-rank latent vectors and expanded per head. Per layer, with hidden h and
 * n heads, the matrix multiplies are
 * <ul>
 *   <li>query down-projection h x q_lora, an RMS norm over the latent, and query
 *       up-projection q_lora x n (nope + rope);</li>
 *   <li>key/value down-projection h x (kv_lora + rope), whose last rope columns are the shared
 *       rotary key, an RMS norm over the kv_lora latent, and key/value up-projection kv_lora x
 *       n (nope + v);</li>
 *   <li>output projection n v x h.</li>
 * </ul>
 * The attention core runs with query/key head dimension nope + rope and value head dimension v.
 *
 * <p>Under tensor parallelism Megatron-core (megatron/core/transformer/multi_latent_attention.py
 * with the Transformer Engine layer spec) builds both down-projections as {@code TELinear} in
 * {@code "duplicated"} mode: every TP rank holds the whole matrix and, under sequence
 * parallelism, applies it to its own s / t tokens (without, to all s tokens, redundantly); their
 * gradients are marked {@code sequence_parallel} and all-reduced over TP. The up-projections
 * (with the latent norms fused in when {@code qk_layernorm} is set) are column-parallel over the
 * heads, so sequence parallelism all-gathers the latents (q_lora + kv_lora + rope wide, not h)
 * before them; the output projection is row-parallel, as in ordinary attention.
 *
 * @param qLoraRank     query latent rank q_lora (DeepSeek-V3: 1536)
 * @param kvLoraRank    key/value latent rank kv_lora (512)
 * @param qkNopeHeadDim per-head query/key dimension without rotary embedding (128)
 * @param qkRopeHeadDim per-head query/key dimension with rotary embedding (64)
 * @param vHeadDim      per-head value dimension (128)
 */
public record LatentAttention(int qLoraRank, int kvLoraRank, int qkNopeHeadDim, int qkRopeHeadDim, int vHeadDim) {

    /** DeepSeek-V2 and V3's shapes. */
    public static final LatentAttention DEEPSEEK_V3 = new LatentAttention(1536, 512, 128, 64, 128);

    public LatentAttention {
        if (qLoraRank < 1 || kvLoraRank < 1 || qkNopeHeadDim < 1 || qkRopeHeadDim < 1 || vHeadDim < 1) {
            throw new IllegalArgumentException("latent attention dimensions must be positive");
        }
    }

    /** Query/key head dimension of the attention core: nope + rope. */
    public int qkHeadDim() {
        return qkNopeHeadDim + qkRopeHeadDim;
    }

    /** Output width of the key/value down-projection: the latent and the shared rotary key. */
    public int kvDownWidth() {
        return kvLoraRank + qkRopeHeadDim;
    }

    /** Weights of the down-projections, which Megatron-core replicates on every TP rank. */
    public double downParams(int hidden) {
        return (double) hidden * (qLoraRank + kvDownWidth());
    }

    /** Weights of the up- and output projections, which Megatron-core splits over the heads. */
    public double splitParams(int hidden, int heads) {
        return (double) qLoraRank * heads * qkHeadDim() + (double) kvLoraRank * heads * (qkNopeHeadDim + vHeadDim)
                + (double) heads * vHeadDim * hidden;
    }

    /** The latent norms' weights: q_lora + kv_lora. */
    public int normParams() {
        return qLoraRank + kvLoraRank;
    }

    /**
     * Width per token of what sequence parallelism all-gathers before the up-projections: both
     * latents and the rotary key, q_lora + kv_lora + rope.
     */
    public int gatheredWidth() {
        return qLoraRank + kvDownWidth();
    }
}
