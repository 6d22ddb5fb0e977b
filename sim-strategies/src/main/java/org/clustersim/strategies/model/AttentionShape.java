package org.clustersim.strategies.model;

/**
 * The shape of a model's self-attention beyond its head counts: the head dimension, the
 * position embedding, sliding windows and multi-head latent attention.
 *
 * <p>The head dimension d is a model dimension of its own, not always hidden / heads: GPT-OSS
 * 120B has 64 query heads of 64 on hidden 2880 (query width 4096). The QKV projection is then
 * h x (heads + 2 kvHeads) d and the output projection (heads d) x h. With latent attention the
 * query/key head dimension is nope + rope and the value head dimension v (see {@link
 * LatentAttention}); {@code headDim} must then equal nope + rope.
 *
 * @param headDim  query/key head dimension d
 * @param position rotary or learned absolute positions
 * @param window   the sliding window and the layers it applies to, or {@code null} (every layer
 *                 full causal attention)
 * @param latent   multi-head latent attention, or {@code null} (grouped-query attention)
 */
public record AttentionShape(int headDim, PositionEmbedding position, SlidingWindow window, LatentAttention latent) {

    public AttentionShape {
        if (headDim < 1) {
            throw new IllegalArgumentException("head dimension must be positive: " + headDim);
        }
        if (position == null) {
            throw new IllegalArgumentException("a position embedding is required");
        }
        if (latent != null && headDim != latent.qkHeadDim()) {
            throw new IllegalArgumentException("with latent attention the head dimension is nope + rope ("
                    + latent.qkHeadDim() + "), not " + headDim);
        }
        if (latent != null && position != PositionEmbedding.ROTARY) {
            throw new IllegalArgumentException("latent attention carries its positions in the rotary head dimensions");
        }
    }

    /** Rotary grouped-query attention with head dimension d, every layer full. */
    public static AttentionShape rotary(int headDim) {
        return new AttentionShape(headDim, PositionEmbedding.ROTARY, null, null);
    }

    /** Learned absolute positions, head dimension d, every layer full. */
    public static AttentionShape learned(int headDim) {
        return new AttentionShape(headDim, PositionEmbedding.LEARNED, null, null);
    }

    /** Multi-head latent attention (rotary, head dimension nope + rope). */
    public static AttentionShape latent(LatentAttention mla) {
        return new AttentionShape(mla.qkHeadDim(), PositionEmbedding.ROTARY, null, mla);
    }

    /** This shape with a sliding window. */
    public AttentionShape withWindow(SlidingWindow w) {
        return new AttentionShape(headDim, position, w, latent);
    }

    /**
     * The windowed layers in words: every layer; layers f, f + p, f + 2p, ... for one local layer
     * per period p; otherwise the pattern (L local, G global) repeated from layer 0.
     */
    private String windowedLayers() {
        int p = window.period();
        int f = window.firstLocal();
        if (p == 1) {
            return "every layer";
        }
        if (window.oneInPeriod()) {
            return "layers " + f + ", " + (f + p) + ", " + (f + 2 * p) + ", ...";
        }
        return "the L layers of " + window.patternText() + " (L local, G global) repeated from layer 0";
    }

    /** Value head dimension: v with latent attention, d otherwise. */
    public int vHeadDim() {
        return latent == null ? headDim : latent.vHeadDim();
    }

    /** A short description for summaries: head dimension or latent ranks, positions, window. */
    public String describe() {
        String heads = latent == null ? "head dim " + headDim
                : "latent q " + latent.qLoraRank() + ", kv " + latent.kvLoraRank() + ", qk " + latent.qkNopeHeadDim()
                + " + " + latent.qkRopeHeadDim() + ", v " + latent.vHeadDim();
        String where = window == null ? "" : ", " + window.tokens() + "-token window on " + windowedLayers();
        return heads + ", " + (position == PositionEmbedding.ROTARY ? "rotary" : "learned positions") + where;
    }
}
