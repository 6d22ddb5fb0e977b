package org.clustersim.strategies.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.model.AttentionShape;
import org.clustersim.strategies.model.PositionEmbedding;
import org.clustersim.strategies.model.SlidingWindow;
import org.clustersim.strategies.model.TransformerModel;
import org.junit.jupiter.api.Test;

/**
 * Local:global attention patterns (Gemma 3: five 1024-token local layers, then one global,
 * repeated from layer 0): which layers are windowed, and the attention work they add up to,
 * against counts worked out here from the period alone.
 */
class LayerPatternTest {
    private static final List<Boolean> GEMMA3 = List.of(true, true, true, true, true, false);

    private static TransformerModel gemmaLike(int layers, int window) {
        return new TransformerModel("gemma-like", layers, 2048, 16, 8, 8192, TransformerModel.FfnKind.SWIGLU, 32000,
                true, null, new AttentionShape(128, PositionEmbedding.ROTARY, new SlidingWindow(window, GEMMA3), null));
    }

    /** Local layers among L under a period of 6 with the last global: 5 per full period, and up to 5 of the rest. */
    private static int localOracle(int layers) {
        return layers / 6 * 5 + Math.min(layers % 6, 5);
    }

    @Test
    void gemma3PatternWindowsFiveLayersInSix() {
        for (int layers = 1; layers <= 40; layers++) {
            TransformerModel m = gemmaLike(layers, 1024);
            int local = 0;
            for (int l = 0; l < layers; l++) {
                local += m.isWindowed(l) ? 1 : 0;
            }
            assertEquals(localOracle(layers), local, layers + " layers");
        }
        TransformerModel g = TransformerModel.GEMMA3_27B;
        assertEquals(62, g.layers());
        // 62 = 10 x 6 + 2: 10 global layers (5, 11, ..., 59), layers 60 and 61 local
        assertEquals(52, g.attentionShape().window().localLayers(g.layers()));
        assertTrue(!g.isWindowed(59) && g.isWindowed(60) && g.isWindowed(61) && !g.isWindowed(5) && g.isWindowed(0));
    }

    @Test
    void gemma3AttentionWorkCountsLocalLayersAtTheirWindow() {
        int s = 8192;
        int w = 1024;
        TransformerModel m = gemmaLike(62, w);
        LayerCostModel cost = AttentionCostTest.cost(m, 2, false, s);
        double flops = 0;
        double modelFlops = 0;
        for (int l = 0; l < m.layers(); l++) {
            flops += cost.attentionCore(l).fFlops();
            modelFlops += m.attentionCoreFlops(l, 1, s);
        }
        // executed (FlashAttention convention, per TP rank of 2): 2 (d + d) heads / 2 FLOPs a pair;
        // a local layer s W - W^2 / 2 pairs, a global one s^2 / 2
        int local = localOracle(62);
        int global = 62 - local;
        double perPair = 2.0 * (128 + 128) * 16 / 2;
        double pairs = local * ((double) s * w - (double) w * w / 2) + global * (double) s * s / 2;
        assertEquals(perPair * pairs, flops, 1e-9 * flops);
        // model FLOPs: twice the pairs over all heads (no causal skipping, as today)
        assertEquals(2 * 2.0 * (128 + 128) * 16 * pairs, modelFlops, 1e-9 * modelFlops);
    }

    @Test
    void malformedPatternsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new SlidingWindow(1024, List.of(false, false)));
        assertThrows(IllegalArgumentException.class, () -> new SlidingWindow(1024, List.of()));
        assertThrows(IllegalArgumentException.class, () -> new SlidingWindow(0, GEMMA3));
        assertThrows(IllegalArgumentException.class, () -> new SlidingWindow(128, 2, 2));
        // the periodic form is the pattern with one local layer at first
        assertEquals(List.of(false, true, false), new SlidingWindow(128, 3, 1).pattern());
    }
}
