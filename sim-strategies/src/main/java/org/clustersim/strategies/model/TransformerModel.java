package org.clustersim.strategies.model;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A dense decoder-only transformer: every layer is self-attention (QKV projection with
 * grouped-query heads, attention core, output projection) followed by an MLP (two matrices
 * with GELU, or three with SwiGLU); the first stage embeds tokens, the last computes logits.
 *
 * <p>FLOP counts follow Narayanan et al., "Efficient Large-Scale Language Model Training on
 * GPU Clusters Using Megatron-LM" (SC'21, arXiv 2104.04473, section 5.1): a matrix multiply
 * of (m x k) by (k x n) costs 2mkn FLOPs, the attention core (scores and weighted sum) is
 * counted without causal skipping, and the backward pass costs twice the forward. For a GPT
 * layer (MHA, 4h GELU MLP) this gives the paper's 24 b s h^2 + 4 b s^2 h per forward.
 *
 * @param name           preset or user-chosen name
 * @param layers         transformer layers
 * @param hidden         hidden size h
 * @param heads          query heads
 * @param kvHeads        key/value heads (= heads for multi-head attention; fewer for GQA)
 * @param ffn            MLP inner size
 * @param ffnKind        GELU (2 matrices) or SwiGLU (3)
 * @param vocab          vocabulary size V
 * @param tiedEmbeddings whether the output projection reuses the embedding matrix
 * @param experts        the mixture-of-experts MLP of the sparse layers, or {@code null} for a
 *                       dense model (then {@code ffn} is every layer's MLP; with experts it is the
 *                       MLP of the leading dense layers)
 */
public record TransformerModel(String name, int layers, int hidden, int heads, int kvHeads, int ffn, FfnKind ffnKind,
                               int vocab, boolean tiedEmbeddings, Experts experts) {

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

    /** A dense model. */
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
        if (hidden % heads != 0) {
            throw new IllegalArgumentException("hidden " + hidden + " is not a multiple of heads " + heads);
        }
        if (heads % kvHeads != 0) {
            throw new IllegalArgumentException("heads " + heads + " is not a multiple of kvHeads " + kvHeads);
        }
        if (experts != null && experts.denseLayers() >= layers) {
            throw new IllegalArgumentException("a mixture-of-experts model needs at least one layer with experts; "
                    + experts.denseLayers() + " of " + layers + " are dense");
        }
    }

    /** A GPT-style model: multi-head attention, GELU MLP, untied embeddings. */
    public TransformerModel(String name, int layers, int hidden, int heads, int ffn, int vocab) {
        this(name, layers, hidden, heads, heads, ffn, FfnKind.GELU, vocab, false);
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
     * DeepSeek-V3-like (DeepSeek-AI, "DeepSeek-V3 Technical Report", 2024, section 4.2): 61
     * layers, h 7168, 128 heads; the first 3 layers dense (SwiGLU 18432), the others 256
     * routed experts of 2048 with top 8 plus one shared expert; vocabulary 129280. Multi-head
     * latent attention is approximated as dense multi-head attention of the same width (128
     * heads of 56), and multi-token prediction is left out; about 672 B parameters, 37 B active.
     * Tokens are routed to experts on at most 4 servers, as in the report.
     */
    public static final TransformerModel DEEPSEEK_V3_LIKE = new TransformerModel("deepseek-v3-like", 61, 7168, 128,
            128, 18432, FfnKind.SWIGLU, 129280, false, new Experts(256, 8, 2048, 1, 1.0, 3, 4));

    /** GPT models as Megatron-LM trains them: the output projection reuses the word embeddings. */
    private static TransformerModel gpt(String name, int layers, int heads, int hidden) {
        return new TransformerModel(name, layers, hidden, heads, heads, 4 * hidden, FfnKind.GELU, 51200, true);
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
                MIXTRAL_8X7B, DEEPSEEK_V3_LIKE)) {
            m.put(t.name(), t);
        }
        for (TransformerModel t : megatronFamily()) {
            m.put(t.name(), t);
        }
        return m;
    }

    public int headDim() {
        return hidden / heads;
    }

    /** Output width of the fused QKV projection: (heads + 2 kvHeads) x headDim. */
    public long qkvWidth() {
        return (long) (heads + 2 * kvHeads) * headDim();
    }

    /** Whether layer {@code l} (0-based) has experts. */
    public boolean isMoeLayer(int l) {
        return experts != null && l >= experts.denseLayers();
    }

    /** Weights of the attention block's matrix multiplies: QKV and output projection. */
    public double attentionParams() {
        double h = hidden;
        return h * qkvWidth() + h * h;
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
     * Forward FLOPs of one dense layer for b sequences of s tokens: 2 b s times the matrix weights,
     * plus 4 b s^2 h for the attention core (scores and weighted sum, no causal skipping).
     */
    public double layerForwardFlops(int microBatch, int seqLen) {
        return 2.0 * microBatch * seqLen * layerMatmulParams() + attentionCoreFlops(microBatch, seqLen);
    }

    /**
     * Forward FLOPs of layer {@code l} as the model defines them: 2 b s times its active weights
     * (routed tokens counted once per chosen expert, capacity padding not counted) plus the
     * attention core.
     */
    public double layerForwardFlops(int l, int microBatch, int seqLen) {
        return 2.0 * microBatch * seqLen * layerActiveParams(l) + attentionCoreFlops(microBatch, seqLen);
    }

    private double attentionCoreFlops(int microBatch, int seqLen) {
        return 4.0 * microBatch * seqLen * (double) seqLen * hidden;
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

    /** Parameters: layers (matrices and two norms), embedding, output projection unless tied, final norm. */
    public double parameters() {
        return withEmbeddings(this::layerMatmulParams);
    }

    /** Parameters one token passes through: like {@link #parameters()} with only the active experts. */
    public double activeParameters() {
        return withEmbeddings(this::layerActiveParams);
    }

    /** Every layer's matrices (as {@code perLayer} counts them) and two norms, plus the embeddings and final norm. */
    private double withEmbeddings(java.util.function.IntToDoubleFunction perLayer) {
        double h = hidden;
        double sum = (double) vocab * h * (tiedEmbeddings ? 1 : 2) + h;
        for (int l = 0; l < layers; l++) {
            sum += perLayer.applyAsDouble(l) + 2 * h;
        }
        return sum;
    }
}
