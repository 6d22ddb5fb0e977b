package org.clustersim.strategies.model;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A decoder-only transformer: every layer is self-attention (grouped-query attention with a QKV
 * projection, attention core and output projection, or multi-head latent attention) followed
 * by an MLP (two matrices with GELU, or three with SwiGLU), dense or a mixture of experts; the
 * first stage embeds tokens, the last computes logits. The attention's head dimension,
 * position embedding, sliding windows and latent projections are its {@link AttentionShape}.
 *
 * <p>FLOP counts follow Narayanan et al., "Efficient Large-Scale Language Model Training on
 * GPU Clusters Using Megatron-LM" (SC'21, arXiv 2104.04473, section 5.1): a matrix multiply
 * of (m x k) by (k x n) costs 2mkn FLOPs, the attention core (scores and weighted sum) is
 * counted without causal skipping, and the backward pass costs twice the forward. For a GPT
 * layer (MHA, 4h GELU MLP) this gives the paper's 24 b s h^2 + 4 b s^2 h per forward. With
 * head dimensions of their own the core is 2 b s^2 heads (d_qk + d_v) (4 b s^2 heads d, which is
 * 4 b s^2 h when d = h / heads).
 *
 * <p>Sliding windows: the SC'21 count is twice the work of the causal triangle (s^2 where a
 * causal kernel needs s^2 / 2 products); a windowed layer's core is counted the same way, twice
 * its causal pairs, 2 b heads (d_qk + d_v) (2 s W - W^2) for a window W &lt; s. Megatron-LM's
 * {@code num_floating_point_operations} (and Megatron-Bridge's copy of it, see
 * docs/validation-sources.md) knows no windows: it counts every GPT-OSS layer as full (causal)
 * attention. We count only the keys a windowed layer attends to, so our model FLOPs for a
 * windowed model are the work the model defines, and lower than a Megatron-convention figure;
 * compare tokens/s across conventions, not TFLOP/s.
 *
 * <p>Latent attention: its five projections as matrix multiplies and the core with d_qk =
 * nope + rope, d_v = v, as Megatron-LM's MLA branch counts them (which also counts the latent
 * norms as one multiply-add per element; we leave norms out everywhere).
 *
 * <p>Why this class is long: the model's dimensions, their checks and every count derived from
 * them (parameters, FLOPs per part) stay together, so that one published model maps to one
 * record and the counts cannot drift apart; the derivations are short methods.
 *
 * <p>Parameters: the matrices, two norms per layer (one with parallel blocks; and the latent norms
 * of latent attention),
 * the embedding and output projection, the final norm. A learned position table (max positions
 * x h, under 0.3% of the SC'21 models) and linear biases are not counted.
 *
 * @param name           preset or user-chosen name
 * @param layers         transformer layers
 * @param hidden         hidden size h
 * @param heads          query heads
 * @param kvHeads        key/value heads (= heads for multi-head and latent attention; fewer for GQA)
 * @param ffn            MLP inner size
 * @param ffnKind        GELU (2 matrices) or SwiGLU (3)
 * @param vocab          vocabulary size V
 * @param tiedEmbeddings whether the output projection reuses the embedding matrix
 * @param experts        the mixture-of-experts MLP of the sparse layers, or {@code null} for a
 *                       dense model (then {@code ffn} is every layer's MLP; with experts it is the
 *                       MLP of the leading dense layers)
 * @param attentionShape head dimension, positions, sliding window and latent attention; {@code
 *                       null} gives rotary attention with d = hidden / heads, every layer full
 * @param parallelBlocks the attention and the MLP of a layer side by side on one norm's output, y =
 *                       x + Attn(LN(x)) + MLP(LN(x)) (GPT-J; PaLM, Chowdhery et al., arXiv
 *                       2204.02311, section 2 "Parallel Layers"), instead of one after the other
 *                       with a norm each. The same matrices and FLOPs; one norm per layer, and
 *                       under tensor parallelism one reduction of the two branches' summed
 *                       outputs. Dense grouped-query attention only (no experts, no latent
 *                       attention)
 */
public record TransformerModel(String name, int layers, int hidden, int heads, int kvHeads, int ffn, FfnKind ffnKind,
                               int vocab, boolean tiedEmbeddings, Experts experts, AttentionShape attentionShape,
                               boolean parallelBlocks) {

    /**
     * A mixture-of-experts MLP (GShard, Lepikhin et al. 2020; Switch, Fedus et al. 2021): a
     * router scores every token against {@code count} experts and sends it to the best
     * {@code topK}; each expert is an MLP of width {@code ffn} of the model's FFN kind.
     * {@code shared} experts see every token (DeepSeekMoE). The capacity factor scales the
     * tokens each expert processes relative to a perfectly balanced share: 1 is dropless
     * routing with balanced load, 1.25 the usual padding of capacity-based dispatch.
     *
     * @param count          routed experts per MoE layer
     * @param topK           experts per token
     * @param ffn            inner size of one expert
     * @param shared         shared experts per MoE layer (0 for none)
     * @param capacityFactor tokens per expert relative to the balanced share
     * @param denseLayers    leading layers that keep a dense MLP of the model's {@code ffn}
     * @param nodeLimit      node-limited routing (DeepSeek-V3, section 2.1.2): each token's experts
     *                       lie on at most this many servers, and the token crosses the network once
     *                       per server, fanning out to its experts there over NVLink; 0 for none
     * @param imbalance      routed tokens on the busiest GPU of an EP group over the mean (1:
     *                       balanced). Each layer's combine waits for that GPU, so its expert time
     *                       sets everyone's; the hot GPU is taken to change from layer to layer
     */
    public record Experts(int count, int topK, int ffn, int shared, double capacityFactor, int denseLayers,
                          int nodeLimit, double imbalance) {
        public Experts {
            if (!(imbalance >= 1)) {
                throw new IllegalArgumentException("expert imbalance is the busiest GPU's load over the mean, at least 1: "
                        + imbalance);
            }
            if (count < 1 || topK < 1 || topK > count || ffn < 1 || shared < 0 || denseLayers < 0 || nodeLimit < 0) {
                throw new IllegalArgumentException("experts need count >= topK >= 1, ffn >= 1, shared >= 0, "
                        + "denseLayers >= 0 and nodeLimit >= 0");
            }
            if (!(capacityFactor > 0)) {
                throw new IllegalArgumentException("capacity factor must be positive: " + capacityFactor);
            }
        }

        /** Balanced routing. */
        public Experts(int count, int topK, int ffn, int shared, double capacityFactor, int denseLayers,
                       int nodeLimit) {
            this(count, topK, ffn, shared, capacityFactor, denseLayers, nodeLimit, 1.0);
        }

        /** Balanced routing without a node limit. */
        public Experts(int count, int topK, int ffn, int shared, double capacityFactor, int denseLayers) {
            this(count, topK, ffn, shared, capacityFactor, denseLayers, 0);
        }

        /** Expert-token assignments per token as processed: topK x capacity factor. */
        public double routedPerToken() {
            return topK * capacityFactor;
        }
    }

    /** Serial blocks: the attention, then the MLP, each after its own norm. */
    public TransformerModel(String name, int layers, int hidden, int heads, int kvHeads, int ffn, FfnKind ffnKind,
                            int vocab, boolean tiedEmbeddings, Experts experts, AttentionShape attentionShape) {
        this(name, layers, hidden, heads, kvHeads, ffn, ffnKind, vocab, tiedEmbeddings, experts, attentionShape, false);
    }

    /** Rotary attention of head dimension hidden / heads on every layer. */
    public TransformerModel(String name, int layers, int hidden, int heads, int kvHeads, int ffn, FfnKind ffnKind,
                            int vocab, boolean tiedEmbeddings, Experts experts) {
        this(name, layers, hidden, heads, kvHeads, ffn, ffnKind, vocab, tiedEmbeddings, experts, null);
    }

    /** A dense model with rotary attention of head dimension hidden / heads. */
    public TransformerModel(String name, int layers, int hidden, int heads, int kvHeads, int ffn, FfnKind ffnKind,
                            int vocab, boolean tiedEmbeddings) {
        this(name, layers, hidden, heads, kvHeads, ffn, ffnKind, vocab, tiedEmbeddings, null);
    }

    /** The MLP's form. */
    public enum FfnKind {
        /** up, activation, down: two matrices. */
        GELU(2),
        /** gate and up, SiLU, down: three matrices. */
        SWIGLU(3);

        private final int matrices;

        FfnKind(int matrices) {
            this.matrices = matrices;
        }

        public int matrices() {
            return matrices;
        }
    }

    public TransformerModel {
        if (layers < 1 || hidden < 1 || heads < 1 || kvHeads < 1 || ffn < 1 || vocab < 1) {
            throw new IllegalArgumentException("model dimensions must be positive");
        }
        if (attentionShape == null) {
            if (hidden % heads != 0) {
                throw new IllegalArgumentException("hidden " + hidden + " is not a multiple of heads " + heads
                        + "; give the head dimension");
            }
            attentionShape = AttentionShape.rotary(hidden / heads);
        }
        if (attentionShape.latent() != null && kvHeads != heads) {
            throw new IllegalArgumentException("latent attention expands keys and values for every head: kvHeads "
                    + kvHeads + " must equal heads " + heads);
        }
        if (heads % kvHeads != 0) {
            throw new IllegalArgumentException("heads " + heads + " is not a multiple of kvHeads " + kvHeads);
        }
        if (parallelBlocks && (experts != null || attentionShape.latent() != null)) {
            throw new IllegalArgumentException("parallel attention and MLP blocks are modelled for dense models with "
                    + "grouped-query attention only, not with " + (experts != null ? "experts" : "latent attention"));
        }
        if (experts != null && experts.denseLayers() >= layers) {
            throw new IllegalArgumentException("a mixture-of-experts model needs at least one layer with experts; "
                    + experts.denseLayers() + " of " + layers + " are dense");
        }
    }

    /** A GPT-style model: multi-head attention with learned positions, GELU MLP, untied embeddings. */
    public TransformerModel(String name, int layers, int hidden, int heads, int ffn, int vocab) {
        this(name, layers, hidden, heads, heads, ffn, FfnKind.GELU, vocab, false, null,
                AttentionShape.learned(hidden / heads));
    }

    /** GPT-3 175B (Brown et al. 2020): 96 layers, h 12288, 96 heads, vocabulary 51,200 as in Megatron. */
    public static final TransformerModel GPT3_175B = gpt("gpt3-175b", 96, 96, 12288);
    /** GPT-3 13B (Brown et al. 2020, table 2.1): 40 layers, h 5120, 40 heads. */
    public static final TransformerModel GPT3_13B = gpt("gpt3-13b", 40, 40, 5120);
    /** GPT-3 XL, 1.3B (Brown et al. 2020, table 2.1): 24 layers, h 2048, 16 heads. */
    public static final TransformerModel GPT3_1_3B = gpt("gpt3-1.3b", 24, 16, 2048);
    /** Llama 3 8B (Llama 3 herd paper, table 3): 32 layers, h 4096, 32 heads, 8 KV heads, SwiGLU 14336. */
    public static final TransformerModel LLAMA3_8B = new TransformerModel("llama3-8b", 32, 4096, 32, 8, 14336,
            FfnKind.SWIGLU, 128256, false);
    /** Llama 3 70B: 80 layers, h 8192, 64 heads, 8 KV heads, SwiGLU 28672. */
    public static final TransformerModel LLAMA3_70B = new TransformerModel("llama3-70b", 80, 8192, 64, 8, 28672,
            FfnKind.SWIGLU, 128256, false);
    /** Llama 3 405B: 126 layers, h 16384, 128 heads, 8 KV heads, SwiGLU 53248. */
    public static final TransformerModel LLAMA3_405B = new TransformerModel("llama3-405b", 126, 16384, 128, 8, 53248,
            FfnKind.SWIGLU, 128256, false);

    /**
     * Mixtral 8x7B (Jiang et al., "Mixtral of Experts", 2024, table 1): 32 layers, h 4096, 32
     * heads, 8 KV heads, 8 SwiGLU experts of 14336, top 2, vocabulary 32000; 46.7 B parameters.
     */
    public static final TransformerModel MIXTRAL_8X7B = new TransformerModel("mixtral-8x7b", 32, 4096, 32, 8, 14336,
            FfnKind.SWIGLU, 32000, false, new Experts(8, 2, 14336, 0, 1.0, 0));
    /**
     * DeepSeek-V3-like (DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv 2412.19437, section
     * 4.2): 61 layers, h 7168, 128 heads of multi-head latent attention (q_lora 1536, kv_lora
     * 512, nope 128, rope 64, v 128); the first 3 layers dense (SwiGLU 18432), the others 256
     * routed experts of 2048 with top 8 plus one shared expert; vocabulary 129280. Multi-token
     * prediction is left out (hence "like"): 671 B parameters, 37.6 B active counting both
     * embedding matrices (the report: 671 B, 37 B). Tokens are routed to experts on at most 4
     * servers, as in the report.
     */
    public static final TransformerModel DEEPSEEK_V3_LIKE = new TransformerModel("deepseek-v3-like", 61, 7168, 128,
            128, 18432, FfnKind.SWIGLU, 129280, false, new Experts(256, 8, 2048, 1, 1.0, 3, 4),
            AttentionShape.latent(LatentAttention.DEEPSEEK_V3));

    /**
     * GPT-OSS 120B (OpenAI, "gpt-oss-120b &amp; gpt-oss-20b Model Card", arXiv 2508.10925, table 1;
     * the Hugging Face {@code openai/gpt-oss-120b} config): 36 layers, h 2880, 64 query heads and
     * 8 KV heads of dimension 64 (query width 4096), rotary positions (YaRN), a 128-token sliding
     * window on every other layer starting with layer 0 ({@code layer_types}), every layer 128
     * experts of 2880 with top 4 and a gated activation of three matrices (modelled as SwiGLU),
     * vocabulary 201,088, untied embeddings. Linear biases and attention sinks are left out.
     * 116.8 B parameters; 5.13 B active in the model card's count, which leaves out the
     * embedding lookup (ours counts it: 5.7 B).
     */
    public static final TransformerModel GPT_OSS_120B = new TransformerModel("gpt-oss-120b", 36, 2880, 64, 8, 2880,
            FfnKind.SWIGLU, 201088, false, new Experts(128, 4, 2880, 0, 1.0, 0),
            new AttentionShape(64, PositionEmbedding.ROTARY, new SlidingWindow(128, 2, 0), null));

    /**
     * Qwen3-30B-A3B (Qwen Team, "Qwen3 Technical Report", arXiv 2505.09388, table 2; the Hugging
     * Face {@code Qwen/Qwen3-30B-A3B} config.json, {@code qwen3_moe}): 48 layers, h 2048, 32
     * query heads and 4 KV heads of dimension 128 (query width 4096 on hidden 2048), rotary
     * positions, every layer an MoE of 128 SwiGLU experts of 768 with top 8 and no shared expert
     * ({@code decoder_sparse_step} 1, {@code mlp_only_layers} empty; the config's dense {@code
     * intermediate_size} 6144 is unused, so {@code ffn} holds the expert width), vocabulary
     * 151,936, untied embeddings. Its query/key RMSNorms are counted as for every model (left
     * out, like Gemma 3's). 30.5 B parameters, 3.3 B active (the report: 30.5 B, 3.3 B).
     */
    public static final TransformerModel QWEN3_30B_A3B = new TransformerModel("qwen3-30b-a3b", 48, 2048, 32, 4, 768,
            FfnKind.SWIGLU, 151936, false, new Experts(128, 8, 768, 0, 1.0, 0), AttentionShape.rotary(128));

    /**
     * Gemma 3 27B (Gemma Team, "Gemma 3 Technical Report", arXiv 2503.19786, section 2; the
     * shapes as MaxText configures them, AI-Hypercomputer/maxtext@22ca8e7b
     * MaxText/configs/models/gemma3-27b.yml, and as the Hugging Face {@code gemma3_text}
     * configs give them): 62 layers, h 5376, 32 query heads and 16 KV heads of dimension 128
     * (query width 4096), a gated GELU MLP of 21504 ({@code mlp_activations: ["gelu","linear"]},
     * three matrices, modelled as SwiGLU), vocabulary 262,208, the output projection tied to the
     * embeddings ({@code logits_via_embedding: True}); rotary positions; five local layers with a
     * 1024-token window then one global layer, repeated from layer 0
     * ({@code GEMMA3_ATTENTION_PATTERN} in MaxText/layers/gemma3.py at maxtext@01be204a; {@code
     * sliding_window_pattern: 6}), so 52 of the 62 layers are local. Gemma's four norms per layer
     * (before and after each block) and its query/key norms are counted as two norms, as for every model.
     */
    public static final TransformerModel GEMMA3_27B = new TransformerModel("gemma3-27b", 62, 5376, 32, 16, 21504,
            FfnKind.SWIGLU, 262208, true, null, new AttentionShape(128, PositionEmbedding.ROTARY,
            new SlidingWindow(1024, List.of(true, true, true, true, true, false)), null));

    /** GPT models as Megatron-LM trains them: the output projection reuses the word embeddings. */
    private static TransformerModel gpt(String name, int layers, int heads, int hidden) {
        return new TransformerModel(name, layers, hidden, heads, heads, 4 * hidden, FfnKind.GELU, 51200, true, null,
                AttentionShape.learned(hidden / heads));
    }

    /** The GPT family of Megatron-LM's weak-scaling table (SC'21 table 1), by parameter count. */
    public static List<TransformerModel> megatronFamily() {
        return List.of(gpt("gpt-1.7b", 24, 24, 2304), gpt("gpt-3.6b", 30, 32, 3072), gpt("gpt-7.5b", 36, 32, 4096),
                gpt("gpt-18.4b", 40, 48, 6144), gpt("gpt-39.1b", 48, 64, 8192), gpt("gpt-76.1b", 60, 80, 10240),
                gpt("gpt-145.6b", 80, 96, 12288), gpt("gpt-310.1b", 96, 128, 16384), gpt("gpt-529.6b", 105, 128, 20480),
                gpt("gpt-1008b", 128, 160, 25600));
    }

    /** Presets by name. */
    public static Map<String, TransformerModel> presets() {
        Map<String, TransformerModel> m = new TreeMap<>();
        for (TransformerModel t : List.of(GPT3_1_3B, GPT3_13B, GPT3_175B, LLAMA3_8B, LLAMA3_70B, LLAMA3_405B,
                MIXTRAL_8X7B, DEEPSEEK_V3_LIKE, GPT_OSS_120B, GEMMA3_27B, QWEN3_30B_A3B)) {
            m.put(t.name(), t);
        }
        for (TransformerModel t : megatronFamily()) {
            m.put(t.name(), t);
        }
        return m;
    }

    /** Query/key head dimension d (nope + rope with latent attention). */
    public int headDim() {
        return attentionShape.headDim();
    }

    /** Value head dimension (v with latent attention, d otherwise). */
    public int vHeadDim() {
        return attentionShape.vHeadDim();
    }

    /** The latent attention's shapes, or {@code null} for grouped-query attention. */
    public LatentAttention latentAttention() {
        return attentionShape.latent();
    }

    /** Whether layers rotate their queries and keys (rotary positions). */
    public boolean rotary() {
        return attentionShape.position() == PositionEmbedding.ROTARY;
    }

    /** Whether layer {@code l} (0-based) attends through a sliding window. */
    public boolean isWindowed(int l) {
        return attentionShape.window() != null && attentionShape.window().covers(l);
    }

    /** Output width of the fused QKV projection of grouped-query attention: (heads + 2 kvHeads) x headDim. */
    public long qkvWidth() {
        return (long) (heads + 2 * kvHeads) * headDim();
    }

    /** Input width of the output projection: heads x value head dimension. */
    public long attentionOutputWidth() {
        return (long) heads * vHeadDim();
    }

    /** Width per token of the keys and values the attention core reads: kvHeads x (d_qk + d_v). */
    public long keyValueWidth() {
        return (long) kvHeads * (headDim() + vHeadDim());
    }

    /**
     * Width per token of what tensor parallelism exchanges on the attention block's input side
     * (the sequence-parallel all-gather before it, the input-gradient reduction after its
     * backward): h, or with latent attention the latents its up-projections gather, q_lora +
     * kv_lora + rope (the down-projections run replicated on each rank's own tokens).
     */
    public int attentionInputWidth() {
        LatentAttention mla = latentAttention();
        return mla == null ? hidden : mla.gatheredWidth();
    }

    /** Whether layer {@code l} (0-based) has experts. */
    public boolean isMoeLayer(int l) {
        return experts != null && l >= experts.denseLayers();
    }

    /**
     * Weights of the attention block's matrix multiplies: QKV and output projection, h (heads +
     * 2 kvHeads) d + heads d h; with latent attention its five projections.
     */
    public double attentionParams() {
        LatentAttention mla = latentAttention();
        if (mla != null) {
            return mla.downParams(hidden) + mla.splitParams(hidden, heads);
        }
        return (double) hidden * qkvWidth() + (double) attentionOutputWidth() * hidden;
    }

    /**
     * Of {@link #attentionParams()}, the weights every tensor-parallel rank holds whole: latent
     * attention's down-projections (Megatron-core duplicates them); none otherwise.
     */
    public double attentionReplicatedParams() {
        LatentAttention mla = latentAttention();
        return mla == null ? 0 : mla.downParams(hidden);
    }

    /**
     * Norm weights of one layer: the two layer norms (one with parallel blocks), and latent
     * attention's latent norms.
     */
    public double layerNormParams() {
        LatentAttention mla = latentAttention();
        return (parallelBlocks ? 1.0 : 2.0) * hidden + (mla == null ? 0 : mla.normParams());
    }

    /** This model with the attention and the MLP of each layer side by side ({@code true}) or in series. */
    public TransformerModel withParallelBlocks(boolean parallel) {
        return new TransformerModel(name, layers, hidden, heads, kvHeads, ffn, ffnKind, vocab, tiedEmbeddings, experts,
                attentionShape, parallel);
    }

    /** Weights of one expert (or of a dense MLP of width {@code width}). */
    public double mlpParams(int width) {
        return ffnKind.matrices() * (double) hidden * width;
    }

    /** Router weights of an MoE layer: h x experts. */
    public double routerParams() {
        return experts == null ? 0 : (double) hidden * experts.count();
    }

    /** Weights of layer {@code l}'s matrix multiplies: attention, and the dense MLP or all experts and the router. */
    public double layerMatmulParams(int l) {
        if (!isMoeLayer(l)) {
            return attentionParams() + mlpParams(ffn);
        }
        return attentionParams() + (experts.count() + experts.shared()) * mlpParams(experts.ffn()) + routerParams();
    }

    /**
     * Weights one token passes through in layer {@code l}: attention, the dense MLP or its top-k
     * and shared experts and the router (the "activated" parameters of an MoE model).
     */
    public double layerActiveParams(int l) {
        if (!isMoeLayer(l)) {
            return layerMatmulParams(l);
        }
        return attentionParams() + (experts.topK() + experts.shared()) * mlpParams(experts.ffn()) + routerParams();
    }

    /** Weights of a dense layer's matrix multiplies (layer 0's for an MoE model with leading dense layers). */
    public double layerMatmulParams() {
        return attentionParams() + mlpParams(ffn);
    }

    /**
     * Forward FLOPs of one dense layer with full attention for b sequences of s tokens: 2 b s
     * times the matrix weights, plus the attention core without causal skipping.
     */
    public double layerForwardFlops(int microBatch, int seqLen) {
        return 2.0 * microBatch * seqLen * layerMatmulParams() + coreFlops(false, microBatch, seqLen);
    }

    /**
     * Forward FLOPs of layer {@code l} as the model defines them: 2 b s times its active weights
     * (routed tokens counted once per chosen expert, capacity padding not counted) plus the
     * attention core.
     */
    public double layerForwardFlops(int l, int microBatch, int seqLen) {
        return 2.0 * microBatch * seqLen * layerActiveParams(l) + attentionCoreFlops(l, microBatch, seqLen);
    }

    /**
     * Forward FLOPs of layer {@code l}'s attention core, scores and weighted sum: 2 b heads (d_qk +
     * d_v) times twice the causal (query, key) pairs, s^2 for full attention (no causal
     * skipping, Narayanan et al. 2021), 2 s W - W^2 for a window W &lt; s.
     */
    public double attentionCoreFlops(int l, int microBatch, int seqLen) {
        return coreFlops(isWindowed(l), microBatch, seqLen);
    }

    private double coreFlops(boolean windowed, int microBatch, int seqLen) {
        double s = seqLen;
        double pairs = windowed ? 2 * attentionShape.window().causalPairs(s) : s * s;
        return 2.0 * microBatch * heads * (double) (headDim() + vHeadDim()) * pairs;
    }

    /**
     * FLOPs of one dense layer's weight-gradient pass (W): one matrix multiply per weight matrix, as
     * many FLOPs as the forward's matrix multiplies. The attention core has no weights; its
     * backward belongs entirely to the input-gradient pass.
     */
    public double layerWeightGradFlops(int microBatch, int seqLen) {
        return 2.0 * microBatch * seqLen * layerMatmulParams();
    }

    /** Forward FLOPs of the output projection to the vocabulary: 2 b s h V. */
    public double logitsForwardFlops(int microBatch, int seqLen) {
        return 2.0 * microBatch * seqLen * hidden * (double) vocab;
    }

    /**
     * Forward FLOPs of the whole model for b sequences of s tokens: every layer and the logits
     * (Narayanan et al. 2021; for MoE layers, the active experts only). A training step's model
     * FLOPs are three times this per sequence (forward, and a backward of twice the forward).
     */
    public double modelForwardFlops(int microBatch, int seqLen) {
        double sum = logitsForwardFlops(microBatch, seqLen);
        for (int l = 0; l < layers; l++) {
            sum += layerForwardFlops(l, microBatch, seqLen);
        }
        return sum;
    }

    /** Bytes of the activation tensor passed between pipeline stages: b s h elements. */
    public long boundaryActivationBytes(int microBatch, int seqLen, int bytesPerElement) {
        return (long) microBatch * seqLen * hidden * bytesPerElement;
    }

    /** Parameters: layers (matrices and norms), embedding, output projection unless tied, final norm. */
    public double parameters() {
        return withEmbeddings(this::layerMatmulParams);
    }

    /** Parameters one token passes through: like {@link #parameters()} with only the active experts. */
    public double activeParameters() {
        return withEmbeddings(this::layerActiveParams);
    }

    /** Every layer's matrices (as {@code perLayer} counts them) and norms, plus the embeddings and final norm. */
    private double withEmbeddings(java.util.function.IntToDoubleFunction perLayer) {
        double h = hidden;
        double sum = (double) vocab * h * (tiedEmbeddings ? 1 : 2) + h;
        for (int l = 0; l < layers; l++) {
            sum += perLayer.applyAsDouble(l) + layerNormParams();
        }
        return sum;
    }
}
