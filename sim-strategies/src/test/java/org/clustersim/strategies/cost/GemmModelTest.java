package org.clustersim.strategies.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.topology.AcceleratorSpec;
import org.junit.jupiter.api.Test;

class GemmModelTest {
    static final GemmModel H100 = GemmModel.of(AcceleratorSpec.H100_SXM, Precision.BF16);

    /** The single-device H100 bf16 GEMM table of the shared hardware reference: m, n, k, TFLOP/s. */
    static final double[][] TABLE = {{1024, 1024, 1024, 253}, {2048, 2048, 2048, 641}, {4096, 4096, 4096, 780},
        {4096, 4096, 256, 399}, {4096, 4096, 512, 552}, {4096, 4096, 1024, 685}, {4096, 4096, 2048, 736},
        {256, 4096, 4096, 418}, {512, 4096, 4096, 662}, {1024, 4096, 4096, 752}, {1024, 1024, 4096, 473},
        {2048, 2048, 1024, 498}};

    @Test
    void reproducesThePublishedGemmTableWithin14Percent() {
        for (double[] row : TABLE) {
            double tf = H100.flopsPerSecond(row[0], row[1], row[2]) / 1e12;
            assertEquals(row[3], tf, 0.14 * row[3], java.util.Arrays.toString(row));
        }
    }

    @Test
    void neverBeatsTheBestMeasuredLargeGemm() {
        double tf = H100.flopsPerSecond(16384, 16384, 16384) / 1e12;
        assertEquals(795, tf, 1.0);
    }

    @Test
    void layerFlopsAddUpToTheModelsCountWithCausalSkipping() {
        TransformerModel gpt = TransformerModel.GPT3_175B;
        LayerCostModel one = new LayerCostModel(gpt, H100, 1, false, 1, 2048, LayerCostModel.Recompute.NONE);
        LayerCostModel.Block[] l = one.layer();
        double b = 1;
        double s = 2048;
        double h = gpt.hidden();
        double executed = gpt.layerForwardFlops(1, 2048) - 2 * b * s * s * h;
        assertEquals(executed, l[0].fFlops() + l[1].fFlops(), executed * 1e-9);
        assertEquals(gpt.layerWeightGradFlops(1, 2048), l[0].wFlops() + l[1].wFlops(), 1);
        // tensor parallelism splits the work of every matrix evenly
        LayerCostModel eight = new LayerCostModel(gpt, H100, 8, true, 1, 2048, LayerCostModel.Recompute.NONE);
        assertEquals(executed / 8, eight.layer()[0].fFlops() + eight.layer()[1].fFlops(), executed * 1e-9);
    }

    @Test
    void recomputationAddsForwardWorkToTheInputGradient() {
        TransformerModel m = TransformerModel.LLAMA3_8B;
        LayerCostModel none = new LayerCostModel(m, H100, 1, false, 1, 8192, LayerCostModel.Recompute.NONE);
        LayerCostModel full = new LayerCostModel(m, H100, 1, false, 1, 8192, LayerCostModel.Recompute.FULL);
        LayerCostModel sel = new LayerCostModel(m, H100, 1, false, 1, 8192, LayerCostModel.Recompute.SELECTIVE);
        double fNone = none.layer()[0].fNs() + none.layer()[1].fNs();
        double biNone = none.layer()[0].biNs() + none.layer()[1].biNs();
        double biFull = full.layer()[0].biNs() + full.layer()[1].biNs();
        assertEquals(biNone + fNone, biFull, 1e-6);
        double biSel = sel.layer()[0].biNs() + sel.layer()[1].biNs();
        assertEquals(biNone + none.attentionCore().fNs(), biSel, 1e-6);
        assertTrue(biSel < biFull);
    }
}
