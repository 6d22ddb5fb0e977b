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
}
