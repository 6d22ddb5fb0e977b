package org.clustersim.strategies.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.clustersim.core.RunOptions;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.metrics.StepMetrics;
import org.clustersim.core.metrics.StepWindows;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.device.AttentionImpl;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.strategies.pipeline.PipelineSchedule;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;

/** Training steps simulated back to back, each waiting for the previous step's weight update. */
class ConsecutiveStepsTest {
    private static final Topology NODE = SwitchedClusterSpec.dgxH100(1).build();
    /** The small model with a vocabulary too small for its logits to unbalance the stages. */
    private static final TransformerModel BALANCED = new TransformerModel("balanced", 8, 2048, 16, 16, 8192,
            TransformerModel.FfnKind.GELU, 256, false);

    private record Run(TrainingStep step, TrainingStep.Built built, Timeline timeline, StepWindows steps) {
    }

    private static Run run(PipelineSchedule schedule, int pp, int dp, int zero, int m, int steps) {
        return run(TrainingStepTest.SMALL, schedule, pp, dp, zero, m, steps);
    }

    private static Run run(TransformerModel model, PipelineSchedule schedule, int pp, int dp, int zero, int m,
                           int steps) {
        TrainingStep s = TrainingStep.builder(model, NODE).kernels(Precision.BF16, AttentionImpl.CUDNN)
                .sizes(1, 1, pp, dp).zero(zero).schedule(schedule).batch(m, 1, 2048).build();
        TrainingStep.Built built = s.build(new StepSequence(steps, false));
        Timeline t = Simulation.run(built.graph(), s.topology(), RunOptions.DEFAULT.withLinkTracks(false))
                .timeline();
        return new Run(s, built, t, StepWindows.of(t, built.firstTasks()));
    }

    @Test
    void oneFOneBStepsFollowOneAnotherWithoutOverlapping() {
        // rank 0 ends a 1F1B step last (its last backward, then its Adam step) and starts the next
        // first, so the steps cannot overlap: every step takes as long as one step alone, and every
        // GPU idles within its window of the last step exactly as it does in one step
        PipelineSchedule oneF = ScheduleKind.ONE_F_ONE_B.schedule(1);
        Run one = run(oneF, 4, 1, 0, 8, 1);
        Run three = run(oneF, 4, 1, 0, 8, 3);
        for (int n = 0; n < 3; n++) {
            assertEquals(one.timeline().makespan(), three.steps().duration(n), "step " + n);
        }
        StepMetrics single = StepMetrics.of(one.steps(), 0);
        StepMetrics last = StepMetrics.of(three.steps(), 2);
        for (int d = 0; d < 4; d++) {
            assertEquals(single.devices().get(d).computeIdleNs(), last.devices().get(d).computeIdleNs(), "GPU " + d);
        }
        // activations of different steps never live together on a rank: the peak stays 1F1B's p - r
        for (int r = 0; r < 4; r++) {
            assertEquals(one.built().pipelines().get(0).peakActivations(one.timeline(), r),
                    three.built().pipelines().get(0).peakActivations(three.timeline(), r), "rank " + r);
        }
    }

    @Test
    void zbVFillsOneStepsTailWithTheNextStepsHead() {
        // one ZB-V step leaves the late ranks idle while the first forward crosses the V; back to
        // back, that wait falls under the previous step's cool-down
        PipelineSchedule zbv = ScheduleKind.ZB_V.schedule(2);
        Run one = run(BALANCED, zbv, 4, 1, 0, 8, 1);
        Run three = run(BALANCED, zbv, 4, 1, 0, 8, 3);
        long period = three.steps().duration(2);
        assertTrue(period < one.timeline().makespan(), period + " vs " + one.timeline().makespan());
        double bubbleOne = StepMetrics.of(one.steps(), 0).meanBubbleFraction();
        double bubbleSteady = StepMetrics.of(three.steps(), 2).meanBubbleFraction();
        assertTrue(bubbleSteady < bubbleOne, bubbleSteady + " vs " + bubbleOne);
    }

    @Test
    void theNextStepWaitsForTheWeightUpdateOfItsStage() {
        // ZeRO 1 over 8 replicas: step 1's first forward starts when the all-gather of the updated
        // weights ends, and nothing of step 1 runs before step 0's Adam step
        Run r = run(ScheduleKind.ONE_F_ONE_B.schedule(1), 1, 8, 1, 2, 2);
        TaskGraph g = r.timeline().graph();
        int firstOfStep1 = r.built().firstTasks()[1];
        long gatherEnd = -1;
        long adamEnd = -1;
        for (int t = 0; t < firstOfStep1; t++) {
            if (g.task(t).name().startsWith("dp-param all-gather")) {
                gatherEnd = Math.max(gatherEnd, r.timeline().end(t));
            }
            if (g.task(t).name().equals("adam step")) {
                adamEnd = Math.max(adamEnd, r.timeline().end(t));
            }
        }
        long step1Start = Long.MAX_VALUE;
        for (int t = firstOfStep1; t < g.taskCount(); t++) {
            step1Start = Math.min(step1Start, r.timeline().start(t));
        }
        assertTrue(adamEnd > 0 && gatherEnd > adamEnd);
        assertEquals(gatherEnd, step1Start);
        assertEquals(r.steps().end(0), gatherEnd, "the gather ends step 0");
    }

    @Test
    void zero3sFirstGatherOfAStepReadsTheUpdatedShards() {
        Run r = run(ScheduleKind.ONE_F_ONE_B.schedule(1), 1, 8, 3, 2, 2);
        TaskGraph g = r.timeline().graph();
        int firstOfStep1 = r.built().firstTasks()[1];
        long adamEnd = -1;
        for (int t = 0; t < firstOfStep1; t++) {
            if (g.task(t).name().equals("adam step")) {
                adamEnd = Math.max(adamEnd, r.timeline().end(t));
            }
        }
        long firstGather = Long.MAX_VALUE;
        for (int t = firstOfStep1; t < g.taskCount(); t++) {
            if (g.task(t).name().startsWith("fsdp all-gather")) {
                firstGather = Math.min(firstGather, r.timeline().start(t));
            }
        }
        assertEquals(adamEnd, firstGather);
    }
}
