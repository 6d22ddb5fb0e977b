package org.clustersim.strategies.model;

import java.util.ArrayList;
import java.util.List;

/**
 * Sliding-window attention on a repeating pattern of layers: in a windowed ("local") layer each
 * query attends (causally) to itself and the {@code tokens - 1} tokens before it, at most {@code
 * tokens} keys, instead of to every earlier token as in a "global" layer (Child et al.,
 * "Generating Long Sequences with Sparse Transformers", arXiv 1904.10509; Beltagy et al.,
 * "Longformer", arXiv 2004.05150). The pattern is laid over the layers from layer 0 and repeated:
 * layer l is local when {@code pattern[l % pattern.size()]} is.
 *
 * <p>GPT-OSS (OpenAI, "gpt-oss-120b &amp; gpt-oss-20b Model Card", arXiv 2508.10925) alternates
 * layers with a 128-token window and full causal layers, starting with a windowed layer 0
 * ({@code layer_types} of its Hugging Face config): pattern local, global, which the periodic
 * form writes as {@code every} 2, {@code first} 0. Gemma 2 (arXiv 2408.00118, section 2) is the
 * same alternation with 4096 tokens; Gemma 3 (arXiv 2503.19786, section 2) has five local layers
 * of 1024 tokens then one global: local x 5, global.
 *
 * @param tokens  window W in tokens
 * @param pattern the layers of one period, in order from layer 0: {@code true} local (windowed),
 *                {@code false} global; at least one local
 */
public record SlidingWindow(int tokens, List<Boolean> pattern) {

    public SlidingWindow {
        if (tokens < 1) {
            throw new IllegalArgumentException("a sliding window needs tokens >= 1: " + tokens);
        }
        pattern = List.copyOf(pattern);
        if (!pattern.contains(true)) {
            throw new IllegalArgumentException("a sliding-window pattern needs at least one local layer: " + pattern);
        }
    }

    /**
     * The periodic form: layers {@code first}, {@code first + every}, {@code first + 2 every}, ...
     * (0-based) are windowed, the others global.
     *
     * @param every period of the pattern: every {@code every}-th layer is windowed (1: all)
     * @param first the first windowed layer, 0-based, less than {@code every}
     */
    public SlidingWindow(int tokens, int every, int first) {
        this(tokens, periodic(every, first));
    }

    private static List<Boolean> periodic(int every, int first) {
        if (every < 1 || first < 0 || first >= every) {
            throw new IllegalArgumentException("a sliding window needs every >= 1 and 0 <= first < every: "
                    + every + ", " + first);
        }
        List<Boolean> out = new ArrayList<>(every);
        for (int i = 0; i < every; i++) {
            out.add(i == first);
        }
        return out;
    }

    /** Layers in one period of the pattern. */
    public int period() {
        return pattern.size();
    }

    /** The first local layer, 0-based. */
    public int firstLocal() {
        return pattern.indexOf(true);
    }

    /** Whether one layer in each period is local (the periodic form {@code every}, {@code first}). */
    public boolean oneInPeriod() {
        return pattern.indexOf(true) == pattern.lastIndexOf(true);
    }

    /** Whether layer {@code l} (0-based) is windowed. */
    public boolean covers(int l) {
        return pattern.get(l % pattern.size());
    }

    /** Windowed layers among layers 0 to {@code layers - 1}. */
    public int localLayers(int layers) {
        int n = 0;
        for (int l = 0; l < layers; l++) {
            n += covers(l) ? 1 : 0;
        }
        return n;
    }

    /** The pattern as text, {@code L} a local layer and {@code G} a global one, such as {@code LLLLLG}. */
    public String patternText() {
        StringBuilder b = new StringBuilder(pattern.size());
        for (boolean local : pattern) {
            b.append(local ? 'L' : 'G');
        }
        return b.toString();
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
