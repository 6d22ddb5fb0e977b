package org.clustersim.strategies.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.clustersim.core.engine.Phase;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.engine.Work;
import org.clustersim.strategies.cost.KernelCosts;
import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.device.DeviceProfiles;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;

/** The MoE all-to-all algorithm a step is told to use ({@link AllToAllAlgorithm}). */
class AllToAllChoiceTest {
    private static final Topology TWO = SwitchedClusterSpec.dgxH100(2).build();

    /** 16 experts, top 4, on at most {@code nodeLimit} servers per token (0: no limit). */
    private static TransformerModel model(int nodeLimit) {
        return ExpertParallelTest.moe(new TransformerModel.Experts(16, 4, 2048, 0, 1.0, 0, nodeLimit));
    }

    /** EP 16 over both servers (8 GPUs on each), one replica standing in for all. */
    private static TrainingStep step(TransformerModel m, AllToAllAlgorithm a) {
        return TrainingStep.builder(m, TWO).mesh(new Mesh(1, 1, 1, 16, 16, Mesh.DEFAULT_ORDER)).zero(1)
                .batch(2, 1, 2048).kernels(KernelCosts.of(DeviceProfiles.bundled("h100-sxm"), Precision.BF16))
                .replicas(1).allToAll(a).build();
    }

    private static int flowsPerAllToAll(TaskGraph g) {
        for (int i = 0; i < g.taskCount(); i++) {
            if (g.task(i).name().startsWith("ep-a2a") && g.task(i).work() instanceof Work.Communication c) {
                int flows = 0;
                for (Phase p : c.phases()) {
                    flows += p.flows().size();
                }
                return flows;
            }
        }
        throw new AssertionError("no all-to-all");
    }

    private static void assertSameTimeline(Timeline expected, Timeline actual) {
        assertEquals(expected.graph().taskCount(), actual.graph().taskCount());
        for (int i = 0; i < expected.graph().taskCount(); i++) {
            assertEquals(expected.start(i), actual.start(i), "start of " + expected.graph().task(i).name());
            assertEquals(expected.end(i), actual.end(i), "end of " + expected.graph().task(i).name());
        }
        assertEquals(expected.events(), actual.events());
    }

    @Test
    void autoKeepsItsChoiceAndTheNamedAlgorithmReproducesIt() {
        // without a node limit auto sends rail-aligned (PXN) across servers ...
        Timeline auto = TrainingStepTest.run(step(model(0), AllToAllAlgorithm.AUTO)).timeline();
        assertSameTimeline(auto, TrainingStepTest.run(step(model(0), AllToAllAlgorithm.PXN)).timeline());
        // ... and with one node-limited
        Timeline autoLimited = TrainingStepTest.run(step(model(1), AllToAllAlgorithm.AUTO)).timeline();
        assertSameTimeline(autoLimited, TrainingStepTest.run(step(model(1), AllToAllAlgorithm.NODE_LIMITED))
                .timeline());
        // a node limit does not change what PXN sends: every expert copy travels
        assertSameTimeline(auto, TrainingStepTest.run(step(model(1), AllToAllAlgorithm.PXN)).timeline());
    }

    @Test
    void eachAlgorithmEmitsItsOwnFlows() {
        int n = 16;
        int servers = 2;
        int k = 8;
        // direct: n (n - 1); PXN: n (k - 1) over NVLink, then n (N - 1) on the rails (two phases)
        assertEquals(n * (n - 1), flowsPerAllToAll(step(model(0), AllToAllAlgorithm.DIRECT).build().graph()));
        assertEquals(n * (k - 1) + n * (servers - 1), flowsPerAllToAll(step(model(0), AllToAllAlgorithm.PXN).build()
                .graph()));
        assertEquals(n * (servers - 1) + n * (k - 1), flowsPerAllToAll(step(model(1), AllToAllAlgorithm.NODE_LIMITED)
                .build().graph()));
        Timeline direct = TrainingStepTest.run(step(model(0), AllToAllAlgorithm.DIRECT)).timeline();
        Timeline pxn = TrainingStepTest.run(step(model(0), AllToAllAlgorithm.PXN)).timeline();
        assertNotEquals(pxn.makespan(), direct.makespan());
    }

    @Test
    void nodeLimitedNeedsTheModelsNodeLimit() {
        assertThrows(IllegalArgumentException.class, () -> step(model(0), AllToAllAlgorithm.NODE_LIMITED));
    }
}
