package org.clustersim.strategies;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.clustersim.core.engine.TaskGraph;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.strategies.pipeline.OneFOneBSchedule;
import org.clustersim.strategies.pipeline.ChunkCost;
import org.clustersim.topology.SwitchedClusterSpec;
import org.junit.jupiter.api.Test;

class PipelineTrainingStepTest {
    private static final TransformerModel GPT3 = TransformerModel.GPT3_175B;

    private static PipelineTrainingStep step(int stages, int m) {
        return new PipelineTrainingStep(GPT3, SwitchedClusterSpec.dgxH100(1).build(), stages, m, 1, 2048,
                Precision.BF16, new OneFOneBSchedule());
    }

    @Test
    void layerFlopsMatchMegatronsCount() {
        // Megatron-LM (SC'21) eq. 3 per layer and microbatch, forward only: 24 b s h^2 (1 + s / (6h)).
        double b = 1;
        double s = 2048;
        double h = 12288;
        double megatron = 24 * b * s * h * h * (1 + s / (6 * h));
        assertEquals(megatron, GPT3.layerForwardFlops(1, 2048), megatron * 1e-12);
    }

    @Test
    void stagesSplitLayersEvenlyAndTheLastAddsTheLogits() {
        PipelineTrainingStep step = step(8, 8);
        double perLayer = GPT3.layerForwardFlops(1, 2048);
        double achieved = 989e12 * (795.0 / 989.0);
        ChunkCost first = step.stageCost(0);
        assertEquals(12 * perLayer, first.forwardFlops(), 1);
        assertEquals(Math.round(12 * perLayer / achieved * 1e9), first.forwardNs());
        assertEquals(2 * step.stageCost(3).forwardFlops(), step.stageCost(3).backwardFlops(), 1);
        double logits = 2.0 * 2048 * 12288 * 51200;
        assertEquals(12 * perLayer + logits, step.stageCost(7).forwardFlops(), 1);
        assertEquals(first.forwardNs(), step.stageCost(6).forwardNs());
    }

    @Test
    void weightGradientIsTheMatrixMultiplyShareOfTheBackward() {
        ChunkCost c = step(8, 8).stageCost(2);
        // W: 12 layers x (8 b s h^2 + 4 b s h ffn); the attention core's backward stays in Bi
        double w = 12 * (8.0 * 2048 * 12288 * 12288 + 4.0 * 2048 * 12288 * 49152);
        assertEquals(w, c.backwardWeightFlops(), 1);
        assertEquals(2 * c.forwardFlops() - w, c.backwardInputFlops(), 1);
        assertTrue(c.backwardInputFlops() > c.backwardWeightFlops());
    }

    @Test
    void taskGraphHasComputeAndSendsForEveryMicrobatch() {
        TaskGraph g = step(4, 6).taskGraph();
        // 4 stages x 6 microbatches x (F + B) + 3 boundaries x 6 microbatches x 2 directions
        assertEquals(4 * 6 * 2 + 3 * 6 * 2, g.taskCount());
        assertEquals(2048L * 12288 * 2, step(4, 6).boundaryBytes());
    }

    @Test
    void rejectsStageCountsThatDoNotDivideTheLayers() {
        assertThrows(IllegalArgumentException.class, () -> step(5, 8));
        assertThrows(IllegalArgumentException.class, () -> step(16, 8), "more stages than GPUs");
    }
}
