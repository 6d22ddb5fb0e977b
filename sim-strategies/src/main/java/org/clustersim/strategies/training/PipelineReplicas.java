package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.engine.TaskGraph;
import org.clustersim.strategies.pipeline.PipelineProgram;
import org.clustersim.strategies.pipeline.PipelineTasks;
import org.clustersim.strategies.pipeline.StageWork;

/**
 * The pipeline dimension of a step: every simulated data-parallel replica runs the schedule
 * over its pp ranks, each rank a group of tp x cp GPUs (cp groups of tp, CP rank-major) running
 * its actions as {@code work} says. A stage boundary carries b s h over the whole group, split
 * evenly over its GPUs.
 */
final class PipelineReplicas {
    private final TrainingStep step;

    PipelineReplicas(TrainingStep step) {
        this.step = step;
    }

    /** Adds every simulated replica's pipeline; returns their activation bookkeeping, replica by replica. */
    List<PipelineTasks> addTo(TaskGraph.Builder g, StageWork work) {
        long boundary = step.model().boundaryActivationBytes(step.microBatch(), step.seqLen(),
                TrainingStep.ACTIVATION_BYTES);
        List<PipelineTasks> pipelines = new ArrayList<>();
        for (int d = 0; d < step.replicas(); d++) {
            pipelines.add(new PipelineProgram(step.schedule(), step.pp(), step.microbatches(), work, boundary,
                    step.blockingSends()).addTo(g, ranks(d)));
        }
        return pipelines;
    }

    /** The GPUs of each pipeline rank of replica {@code d}. */
    private int[][] ranks(int d) {
        int tp = step.tp();
        int cp = step.cp();
        int[][] ranks = new int[step.pp()][tp * cp];
        for (int p = 0; p < step.pp(); p++) {
            for (int c = 0; c < cp; c++) {
                for (int t = 0; t < tp; t++) {
                    ranks[p][c * tp + t] = step.device(t, c, p, d);
                }
            }
        }
        return ranks;
    }
}
