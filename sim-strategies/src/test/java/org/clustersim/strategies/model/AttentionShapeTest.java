package org.clustersim.strategies.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Head dimensions, sliding windows and latent attention in parameter and FLOP counts. */
class AttentionShapeTest {
    static final TransformerModel OSS = TransformerModel.GPT_OSS_120B;
    static final TransformerModel DSV3 = TransformerModel.DEEPSEEK_V3_LIKE;

    @Test
    void gptOssMatchesItsModelCard() {
        // model card (arXiv 2508.10925, table 1): 116.83 B total, 5.13 B active; the card counts
        // the unembedding as active but not the embedding lookup, which we count
        assertEquals(116.83e9, OSS.parameters(), 0.01 * 116.83e9);
        double embedding = 201088.0 * 2880;
        assertEquals(5.13e9, OSS.activeParameters() - embedding, 0.02 * 5.13e9);
    }

    @Test
    void deepSeekV3MatchesItsReport() {
        // DeepSeek-V3 report: 671 B total, 37 B activated (without the multi-token prediction module)
        assertEquals(671e9, DSV3.parameters(), 0.01 * 671e9);
        assertEquals(37e9, DSV3.activeParameters(), 0.03 * 37e9);
    }

    @Test
    void gptOssQueryWidthIsHeadsTimesItsOwnHeadDim() {
        assertEquals(64, OSS.headDim(), "not hidden / heads = 45");
        // QKV 2880 x (64 + 2 x 8) x 64, output 64 x 64 x 2880
        assertEquals(2880.0 * 80 * 64 + 4096.0 * 2880, OSS.attentionParams());
        assertEquals(8 * 128, OSS.keyValueWidth(), "8 KV heads of 64, keys and values");
    }

    @Test
    void gptOssAlternatesWindowedAndFullLayersFromLayerZero() {
        assertTrue(OSS.isWindowed(0));
        assertFalse(OSS.isWindowed(1));
        assertTrue(OSS.isWindowed(34));
        assertFalse(OSS.isWindowed(35));
        assertFalse(TransformerModel.LLAMA3_8B.isWindowed(0));
    }

    @Test
    void windowedLayerCountsOnlyTheKeysInItsWindow() {
        int s = 4096;
        // full: 4 b s^2 heads d (SC'21, no causal skipping); windowed: twice the causal pairs,
        // 2 (s W - W^2 / 2), for each of 64 heads and 2 x 64 FLOPs per pair and head dimension
        double full = 4.0 * s * s * 64 * 64;
        double windowed = 2.0 * (s * 128.0 - 128.0 * 128 / 2) * 2 * 64 * (64 + 64);
        assertEquals(full, OSS.attentionCoreFlops(1, 1, s), 1);
        assertEquals(windowed, OSS.attentionCoreFlops(0, 1, s), 1);
        // a window as long as the sequence is full attention
        SlidingWindow whole = new SlidingWindow(s, 1, 0);
        TransformerModel covered = new TransformerModel("w", 2, 2880, 64, 8, 2880, TransformerModel.FfnKind.SWIGLU,
                1000, false, null, new AttentionShape(64, PositionEmbedding.ROTARY, whole, null));
        assertEquals(full, covered.attentionCoreFlops(0, 1, s), 1);
    }

    @Test
    void latentAttentionLayerFlopsFromItsDimensions() {
        int s = 4096;
        // DeepSeek-V3, h 7168, 128 heads: q down 7168 x 1536, q up 1536 x 128 (128 + 64), kv down
        // 7168 x (512 + 64), kv up 512 x 128 (128 + 128), output 128 x 128 x 7168
        double attention = 7168.0 * 1536 + 1536.0 * 128 * 192 + 7168.0 * 576 + 512.0 * 128 * 256
                + 128.0 * 128 * 7168;
        assertEquals(187_105_280, attention);
        assertEquals(attention, DSV3.attentionParams());
        double mlp = 3.0 * 7168 * 18432;
        // core: scores with d_qk 192 and weighted sum with d_v 128 over the whole s x s square
        double core = 2.0 * s * s * 128 * 192 + 2.0 * s * s * 128 * 128;
        assertEquals(2.0 * s * (attention + mlp) + core, DSV3.layerForwardFlops(0, 1, s), 1e3);
        // the latent norms are parameters of their own: 1536 + 512 next to two of 7168
        assertEquals(2 * 7168 + 1536 + 512, DSV3.layerNormParams());
    }

    @Test
    void inconsistentShapesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new SlidingWindow(128, 2, 2));
        assertThrows(IllegalArgumentException.class, () -> new AttentionShape(64, PositionEmbedding.ROTARY, null,
                LatentAttention.DEEPSEEK_V3));
        assertThrows(IllegalArgumentException.class, () -> new TransformerModel("m", 2, 7168, 128, 8, 1000,
                TransformerModel.FfnKind.SWIGLU, 1000, false, null, AttentionShape.latent(LatentAttention.DEEPSEEK_V3)));
    }
}
