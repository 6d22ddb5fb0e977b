package org.clustersim.strategies.training;

import org.clustersim.strategies.pipeline.PipelineSchedule;

/**
 * The data-parallel pipelines of a step: the schedule each runs, the layers of each stage, how
 * stage-to-stage sends block, and how many of the pipelines are simulated task by task.
 *
 * @param schedule      pipeline schedule
 * @param split         layers per stage ({@link LayerSplit#even} when {@code null})
 * @param blockingSends a rank waits for its sends before its next action (synchronous p2p)
 * @param replicas      data-parallel replicas simulated task by task: all d, or 1. With 1, the
 *                      other replicas are taken to be identical to the first (they are, up to
 *                      contention between replicas' pipeline traffic): their GPUs join every
 *                      data-parallel collective and expert all-to-all as soon as replica 0
 *                      reaches it, so that traffic still crosses the whole fabric, at a fraction
 *                      of the tasks
 */
public record Pipelines(PipelineSchedule schedule, LayerSplit split, boolean blockingSends, int replicas) {

    public Pipelines {
        java.util.Objects.requireNonNull(schedule, "schedule");
    }

    /** These pipelines with the layer split {@code s}. */
    public Pipelines withSplit(LayerSplit s) {
        return new Pipelines(schedule, s, blockingSends, replicas);
    }

    /** These pipelines with {@code count} of them simulated task by task. */
    public Pipelines withReplicas(int count) {
        return new Pipelines(schedule, split, blockingSends, count);
    }
}
