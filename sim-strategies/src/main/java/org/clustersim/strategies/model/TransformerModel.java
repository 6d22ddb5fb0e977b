package org.clustersim.strategies.model;

/**
 * A dense GPT-style decoder: every layer is self-attention (QKV projection, attention core,
 * output projection) followed by a two-matrix MLP, and the last stage computes the logits.
 *
 * <p>FLOP counts follow Narayanan et al., "Efficient Large-Scale Language Model Training on
 * GPU Clusters Using Megatron-LM" (SC'21, arXiv 2104.04473, section 5.1): a matrix multiply
 * of (m x k) by (k x n) costs 2mkn FLOPs, the attention core is counted without causal
 * skipping, and the backward pass costs twice the forward.
 *
 * @param name   preset or user-chosen name
 * @param layers number of transformer layers
 * @param hidden hidden size h
 * @param heads  attention heads
 * @param ffn    MLP inner size (4h for GPT-3)
 * @param vocab  vocabulary size V
 */
public record TransformerModel(String name, int layers, int hidden, int heads, int ffn, int vocab) {
    public TransformerModel {
        if (layers < 1 || hidden < 1 || heads < 1 || ffn < 1 || vocab < 1) {
            throw new IllegalArgumentException("model dimensions must be positive");
        }
        if (hidden % heads != 0) {
            throw new IllegalArgumentException("hidden " + hidden + " is not a multiple of heads " + heads);
        }
    }

    /** GPT-3 175B (Brown et al. 2020): 96 layers, h 12288, 96 heads, vocabulary 51,200 as in Megatron. */
    public static final TransformerModel GPT3_175B = new TransformerModel("gpt3-175b", 96, 12288, 96, 4 * 12288, 51200);
    /** GPT-3 13B (Brown et al. 2020, table 2.1): 40 layers, h 5120, 40 heads. */
    public static final TransformerModel GPT3_13B = new TransformerModel("gpt3-13b", 40, 5120, 40, 4 * 5120, 51200);
    /** GPT-3 XL, 1.3B (Brown et al. 2020, table 2.1): 24 layers, h 2048, 16 heads. */
    public static final TransformerModel GPT3_1_3B = new TransformerModel("gpt3-1.3b", 24, 2048, 16, 4 * 2048, 51200);

    /** Presets by name. */
    public static java.util.Map<String, TransformerModel> presets() {
        java.util.Map<String, TransformerModel> m = new java.util.TreeMap<>();
        for (TransformerModel t : java.util.List.of(GPT3_1_3B, GPT3_13B, GPT3_175B)) {
            m.put(t.name(), t);
        }
        return m;
    }

    /**
     * Forward FLOPs of one layer for {@code tokens = b s} tokens of sequence length {@code s}:
     * QKV 6 b s h^2, attention scores and weighted sum 4 b s^2 h, output projection 2 b s h^2,
     * MLP 4 b s h ffn.
     */
    public double layerForwardFlops(int microBatch, int seqLen) {
        double b = microBatch;
        double s = seqLen;
        double h = hidden;
        return 8 * b * s * h * h + 4 * b * s * h * ffn + 4 * b * s * s * h;
    }

    /**
     * FLOPs of one layer's weight-gradient pass (W): one matrix multiply per weight matrix, as
     * many FLOPs as the forward's matrix multiplies (8 b s h^2 + 4 b s h ffn). The attention
     * core has no weights; its backward belongs entirely to the input-gradient pass.
     */
    public double layerWeightGradFlops(int microBatch, int seqLen) {
        double b = microBatch;
        double s = seqLen;
        double h = hidden;
        return 8 * b * s * h * h + 4 * b * s * h * ffn;
    }

    /** Forward FLOPs of the output projection to the vocabulary: 2 b s h V. */
    public double logitsForwardFlops(int microBatch, int seqLen) {
        return 2.0 * microBatch * seqLen * hidden * (double) vocab;
    }

    /** Bytes of the activation tensor passed between pipeline stages: b s h elements. */
    public long boundaryActivationBytes(int microBatch, int seqLen, int bytesPerElement) {
        return (long) microBatch * seqLen * hidden * bytesPerElement;
    }

    /** Parameters of the weights (layers, embedding, final norm), ignoring biases' small share. */
    public double parameters() {
        double h = hidden;
        return layers * (4 * h * h + 2 * h * ffn + 4 * h) + (double) vocab * h;
    }
}
