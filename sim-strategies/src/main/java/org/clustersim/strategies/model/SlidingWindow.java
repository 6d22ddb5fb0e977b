package org.clustersim.strategies.model;

/**
 * Sliding-window attention on a periodic pattern of layers: in a windowed layer each query
 * attends (causally) to itself and the {@code tokens - 1} tokens before it, at most {@code
 * tokens} keys, instead of to every earlier token (Child et al., "Generating Long Sequences
 * with Sparse Transformers", arXiv 1904.10509; Beltagy et al., "Longformer", arXiv
 * 2004.05150). GPT-OSS (OpenAI, "gpt-oss-120b &amp; gpt-oss-20b Model Card", arXiv 2508.10925)
 * alternates layers with a 128-token window and full causal layers, starting with a windowed
 * layer 0 ({@code layer_types} of its Hugging Face config), which is {@code tokens} 128,
 * {@code every} 2, {@code first} 0.
 *
 * @param tokens window W in tokens
 * @param every  period of the pattern: every {@code every}-th layer is windowed (1: all)
 * @param first  the first windowed layer, 0-based, less than {@code every}
 */
public record SlidingWindow(int tokens, int every, int first) {

    public SlidingWindow {
        if (tokens < 1 || every < 1 || first < 0 || first >= every) {
            throw new IllegalArgumentException("a sliding window needs tokens >= 1, every >= 1 and 0 <= first < every: "
                    + tokens + ", " + every + ", " + first);
        }
    }

    /** Whether layer {@code l} (0-based) is windowed. */
    public boolean covers(int l) {
        return l >= first && (l - first) % every == 0;
    }

    /**
     * (query, key) pairs a causal windowed layer computes per sequence of s tokens, in the
     * continuous form FlashAttention's FLOP convention uses for the causal triangle (s^2 / 2):
     * s W - W^2 / 2 when W &lt; s (each query attends to W keys, less the triangle the first W
     * queries lack), s^2 / 2 otherwise (the window covers the whole sequence).
     */
    public double causalPairs(double s) {
        double w = Math.min(tokens, s);
        return s * w - w * w / 2;
    }
}
