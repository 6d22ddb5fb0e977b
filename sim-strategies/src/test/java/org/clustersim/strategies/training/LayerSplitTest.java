package org.clustersim.strategies.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LayerSplitTest {
    @Test
    void llamaThreeSplitPutsLayerIndicesEndToEnd() {
        int[] perStage = new int[16];
        java.util.Arrays.fill(perStage, 8);
        perStage[0] = 7;
        perStage[15] = 7;
        LayerSplit s = LayerSplit.of(126, perStage);
        assertEquals(16, s.stages());
        assertEquals(0, s.firstLayer(0));
        assertEquals(7, s.firstLayer(1));
        assertEquals(119, s.firstLayer(15));
        assertEquals(126, s.firstLayer(15) + s.layers(15));
        assertFalse(s.isEven());
        assertTrue(LayerSplit.even(96, 8).isEven());
    }

    @Test
    void rejectsSplitsThatDoNotCoverTheModel() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LayerSplit.of(10, 4, 4)).getMessage()
                .contains("add up to 8"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LayerSplit.of(4, 4, 0)).getMessage()
                .contains("at least one"));
        assertThrows(IllegalArgumentException.class, () -> LayerSplit.even(126, 16));
    }

    @Test
    void accountingTakesOneLayerFromTheFirstAndTheLastStage() {
        // Megatron's get_num_layers_to_build: 30 + 2 counted layers on 4 ranks, 8 each
        assertEquals(LayerSplit.of(30, 7, 8, 8, 7), LayerSplit.accounting(30, 4, true, true));
        assertEquals(LayerSplit.of(31, 7, 8, 8, 8), LayerSplit.accounting(31, 4, true, false));
        assertEquals(LayerSplit.of(31, 8, 8, 8, 7), LayerSplit.accounting(31, 4, false, true));
        // Llama 3.1 405B, PP 8 x VP 8: 128 counted layers in 64 virtual stages of 2
        int[] l = LayerSplit.accounting(126, 64, true, true).perStage();
        assertEquals(1, l[0]);
        assertEquals(1, l[63]);
        assertEquals(126, java.util.Arrays.stream(l).sum());
        assertEquals(62, java.util.Arrays.stream(l).filter(x -> x == 2).count());
        // one stage keeps every layer
        assertEquals(LayerSplit.of(12, 12), LayerSplit.accounting(12, 1, true, true));
    }

    @Test
    void accountingRejectsCountsTheStagesDoNotDivide() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LayerSplit.accounting(32, 4, true, false))
                .getMessage().contains("= 33"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LayerSplit.accounting(6, 8, true, true))
                .getMessage().contains("no transformer layer"));
    }
}
