package org.clustersim.strategies.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Pattern;

import org.clustersim.core.RunOptions;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Work;
import org.clustersim.strategies.cost.KernelCosts;
import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.device.DeviceProfiles;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.topology.AcceleratorSpec;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;

/**
 * Parallel attention and MLP blocks (GPT-J, PaLM) against the same model with serial blocks, on
 * two H100s with tensor parallelism 2: the same matrix multiplies, one norm instead of two, half
 * the tensor-parallel collectives per layer (each of the same size) and a shorter step.
 */
class ParallelBlocksTest {
    private static final Topology TWO = new SwitchedClusterSpec("two", AcceleratorSpec.H100_SXM, 1, 2, 450e9, 250,
            50e9, 200, 1200).build();
    private static final KernelCosts H100 = KernelCosts.of(DeviceProfiles.bundled("h100-sxm"), Precision.BF16);
    private static final TransformerModel SERIAL = new TransformerModel("serial", 4, 4096, 32, 8, 14336,
            TransformerModel.FfnKind.SWIGLU, 32000, false);
    private static final TransformerModel PARALLEL = SERIAL.withParallelBlocks(true);
    private static final int SEQ = 4096;

    private static TrainingStep step(TransformerModel m, boolean sp) {
        return step(m, sp, LayerCostModel.Recompute.NONE);
    }

    private static TrainingStep step(TransformerModel m, boolean sp, LayerCostModel.Recompute recompute) {
        return TrainingStep.builder(m, TWO).sizes(2, 1, 1, 1).sequenceParallel(sp).recompute(recompute)
                .batch(2, 1, SEQ).kernels(H100).replicas(1).build();
    }

    /** TP collective tasks of layer 1 on the graph, and the bytes each carries. */
    private record Collectives(int count, long bytes) {
    }

    private static Collectives layerCollectives(TaskGraph g) {
        Pattern layer1 = Pattern.compile("^tp-(ar|ag|rs) .* L1 .*");
        int n = 0;
        long bytes = -1;
        for (int t = 0; t < g.taskCount(); t++) {
            if (layer1.matcher(g.task(t).name()).matches()) {
                n++;
                Work.Communication c = (Work.Communication) g.task(t).work();
                bytes = c.bytes();
            }
        }
        return new Collectives(n, bytes);
    }

    @Test
    void halfTheTensorParallelCollectivesPerLayerOfTheSameSize() {
        for (LayerCostModel.Recompute r : new LayerCostModel.Recompute[] {LayerCostModel.Recompute.NONE,
                LayerCostModel.Recompute.FULL}) {
            for (boolean sp : new boolean[] {false, true}) {
                Collectives serial = layerCollectives(step(SERIAL, sp, r).build().graph());
                Collectives parallel = layerCollectives(step(PARALLEL, sp, r).build().graph());
                // serial: two blocks x (F, B, and the forward replayed under full recomputation) x 2
                // microbatches, each one all-reduce, or an all-gather and a reduce-scatter
                int passes = r == LayerCostModel.Recompute.FULL ? 3 : 2;
                String where = "sp " + sp + ", recompute " + r;
                assertEquals((sp ? 2 : 1) * 2 * passes * 2, serial.count(), "serial, " + where);
                assertEquals(serial.count() / 2, parallel.count(), "parallel, " + where);
                assertEquals(serial.bytes(), parallel.bytes(), "each carries the b s h activations");
            }
        }
    }

    @Test
    void sameMatmulFlopsOneNormAndAShorterStep() {
        LayerCostModel serial = AttentionCostTest.cost(SERIAL, 2, false, SEQ);
        LayerCostModel parallel = AttentionCostTest.cost(PARALLEL, 2, false, SEQ);
        LayerCostModel.Block s = serial.layer(0)[0].plus(serial.layer(0)[1]);
        LayerCostModel.Block p = parallel.layer(0)[0].plus(parallel.layer(0)[1]);
        assertEquals(s.fFlops(), p.fFlops());
        assertEquals(s.biFlops(), p.biFlops());
        assertEquals(s.wFlops(), p.wFlops());
        for (String gemm : new String[] {"qkv", "proj", "fc1", "fc2"}) {
            assertEquals(AttentionCostTest.opNs(s, gemm), AttentionCostTest.opNs(p, gemm), gemm);
        }
        assertEquals(AttentionCostTest.opNs(s, "norm") / 2, AttentionCostTest.opNs(p, "norm"), 1e-9,
                "one norm instead of two");
        assertEquals(AttentionCostTest.opNs(s, "residual") / 2, AttentionCostTest.opNs(p, "residual"), 1e-9,
                "one residual add instead of two");
        assertEquals(SERIAL.modelForwardFlops(1, SEQ), PARALLEL.modelForwardFlops(1, SEQ));
        assertEquals(SERIAL.parameters() - SERIAL.layers() * (double) SERIAL.hidden(), PARALLEL.parameters(),
                "one norm's weights fewer per layer");

        for (boolean sp : new boolean[] {false, true}) {
            for (LayerCostModel.Recompute r : LayerCostModel.Recompute.values()) {
                TrainingStep a = step(SERIAL, sp, r);
                TrainingStep b = step(PARALLEL, sp, r);
                double flops = AttentionCostTest.stepFlops(a);
                assertEquals(flops, AttentionCostTest.stepFlops(b), 1e-9 * flops);
                long ta = Simulation.run(a.build().graph(), TWO, RunOptions.DEFAULT.withLinkTracks(false)).timeline()
                        .makespan();
                long tb = Simulation.run(b.build().graph(), TWO, RunOptions.DEFAULT.withLinkTracks(false)).timeline()
                        .makespan();
                assertTrue(tb < ta, "parallel " + tb + " ns vs serial " + ta + " ns, sp " + sp + ", recompute " + r);
            }
        }
    }

    @Test
    void activationsKeepOneNormsInputAndOutput() {
        for (boolean sp : new boolean[] {false, true}) {
            long serial = new MemoryModel(step(SERIAL, sp)).activationBytes(0);
            long parallel = new MemoryModel(step(PARALLEL, sp)).activationBytes(0);
            // per layer: the second norm's input and output (2 + 2 bytes of h per token) and one
            // residual's dropout mask (1), over t = 2 with sequence parallelism
            double saved = SERIAL.layers() * 5.0 * SEQ * SERIAL.hidden() / (sp ? 2 : 1);
            assertEquals(saved, serial - parallel, 2, "sp " + sp);
        }
    }

    @Test
    void parallelBlocksAreRefusedWithExpertsAndWithTensorParallelOverlap() {
        assertThrows(IllegalArgumentException.class, () -> TransformerModel.MIXTRAL_8X7B.withParallelBlocks(true));
        assertThrows(IllegalArgumentException.class, () -> TransformerModel.DEEPSEEK_V3_LIKE.withParallelBlocks(true));
        assertThrows(IllegalArgumentException.class, () -> TrainingStep.builder(PARALLEL, TWO).sizes(2, 1, 1, 1)
                .sequenceParallel(true).tpCommOverlap(true).batch(2, 1, SEQ).kernels(H100).replicas(1).build());
    }
}
