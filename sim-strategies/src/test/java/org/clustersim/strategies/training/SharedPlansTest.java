package org.clustersim.strategies.training;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;

import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Work;
import org.clustersim.strategies.cost.KernelCosts;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.device.DeviceProfiles;
import org.junit.jupiter.api.Test;

/**
 * Tasks that run the same communication share one plan by identity: the network memoises routes,
 * flow classes and adaptive choices per phase object, so a plan made afresh per task (ZeRO-3's
 * gathers and reductions, ring attention's steps, TP overlap's ring steps, CP collectives) held
 * hundreds of thousands of phases, their flows and memos in a 16K-GPU plan's simulations.
 */
class SharedPlansTest {
    /**
     * Asserts that every communication task whose work equals an earlier task's of the same name
     * but for its numbers (microbatch, layer, step) carries that same object, and that some task
     * does (the step repeats communications). Other names may carry equal plans apart (a ring
     * reduce-scatter's flows are a ring all-gather's).
     */
    private static void everyRepeatShares(TaskGraph g) {
        Map<java.util.List<Object>, Work> first = new HashMap<>();
        int repeats = 0;
        for (int t = 0; t < g.taskCount(); t++) {
            if (g.task(t).work() instanceof Work.Communication w) {
                Work earlier = first.putIfAbsent(java.util.List.of(g.task(t).name().replaceAll("[0-9]+", "#"), w), w);
                if (earlier != null) {
                    assertSame(earlier, w, "task " + g.task(t).name() + " repeats a plan but holds a copy");
                    repeats++;
                }
            }
        }
        assertTrue(repeats > 0, "the step repeats some communication");
    }

    @Test
    void zero3GathersAndReductionsShareTheirPlans() {
        everyRepeatShares(Zero3ImplTest.step(ShardingOptions.defaults(), 2).build().graph());
    }

    @Test
    void ringAttentionStepsShareTheirPlans() {
        everyRepeatShares(TrainingStepTest.crossServerContext(ContextParallel.RING).build().graph());
    }

    @Test
    void contextParallelCollectivesShareTheirPlans() {
        everyRepeatShares(TrainingStepTest.crossServerContext(ContextParallel.ALL_GATHER).build().graph());
    }

    @Test
    void tensorParallelRingStepsShareTheirPlans() {
        TrainingStep s = TrainingStep.builder(TrainingStepTest.SMALL, Zero3ImplTest.NODE).sizes(8, 1, 1, 1)
                .sequenceParallel(true).batch(2, 1, 4096)
                .kernels(KernelCosts.of(DeviceProfiles.bundled("h100-sxm"), Precision.BF16)).replicas(1)
                .tpCommOverlap(true).build();
        everyRepeatShares(s.build().graph());
    }
}
