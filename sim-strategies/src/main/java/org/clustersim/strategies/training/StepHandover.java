package org.clustersim.strategies.training;

import java.util.List;

import org.clustersim.core.engine.TaskGraph;
import org.clustersim.strategies.pipeline.PipelineTasks;
import org.clustersim.strategies.pipeline.StagePlacement;

/**
 * The dependency of a step on the previous step's weight update: the first forward of every
 * stage on every pipeline rank waits until the update of the weights it uses is complete on
 * each GPU of the rank (its Adam step, and the all-gather of updated weights under ZeRO 1 or 2
 * when that follows the optimizer), and under ZeRO 3 each GPU's first weight gather of the step
 * waits for the updates of the shards it gathers. Nothing else orders consecutive steps, so
 * the next step starts on each rank as soon as its own weights are updated.
 */
final class StepHandover {
    /** The stream ZeRO-3's weight gathers run on ({@link ShardedWeights}). */
    static final String FSDP_GATHER_STREAM = "fsdp-ag";

    private final TrainingStep step;
    private final TaskGraph.Builder g;
    private final OptimizerStep previous;

    StepHandover(TrainingStep step, TaskGraph.Builder g, OptimizerStep previous) {
        this.step = step;
        this.g = g;
        this.previous = previous;
    }

    /**
     * Makes the step whose tasks start at {@code firstTask} wait for {@code previous}.
     *
     * @param pipelines the step's pipelines, replica by replica
     * @param sharded   whether weights are gathered per layer (ZeRO 3)
     */
    void link(List<PipelineTasks> pipelines, int firstTask, boolean sharded) {
        StagePlacement placement = step.schedule().placement(step.pp(), step.microbatches());
        for (int d = 0; d < step.replicas(); d++) {
            for (int p = 0; p < step.pp(); p++) {
                for (int k = 0; k < placement.stages(); k++) {
                    int first = pipelines.get(d).firstForward(p, k);
                    if (first < 0) {
                        continue;
                    }
                    for (int c = 0; c < step.cp(); c++) {
                        for (int t = 0; t < step.tp(); t++) {
                            for (int u : previous.updatesOf(step.device(t, c, p, d))) {
                                g.addDependency(first, u);
                            }
                        }
                    }
                }
                if (sharded) {
                    shardedGathers(d, p, firstTask);
                }
            }
        }
    }

    /** ZeRO 3: each GPU's first gather of the step reads shards every member of its group updated. */
    private void shardedGathers(int d, int p, int firstTask) {
        for (int t = 0; t < step.tp(); t++) {
            int[] group = step.mesh().gradientGroup(t, p);
            for (int c = 0; c < step.cp(); c++) {
                int gather = g.firstTaskFrom(step.device(t, c, p, d), FSDP_GATHER_STREAM, firstTask);
                if (gather < 0) {
                    continue;
                }
                for (int member : group) {
                    for (int u : previous.updatesOf(member)) {
                        g.addDependency(gather, u);
                    }
                }
            }
        }
    }
}
