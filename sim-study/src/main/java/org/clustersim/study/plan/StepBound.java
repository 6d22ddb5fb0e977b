package org.clustersim.study.plan;

import org.clustersim.core.engine.CriticalPath;
import org.clustersim.core.engine.TaskGraph;

/**
 * A lower bound on a step's simulated time that needs no simulation: the longest path through
 * the task graph when every compute task takes its nominal duration and every communication
 * takes no time at all. The engine starts a task only when its dependencies have finished and the
 * task before it on each of its streams has finished; a compute task never runs faster than its
 * nominal duration (a slow GPU or communication beside it only stretches it) and a transfer never
 * takes less than nothing, so no timeline of the graph ends sooner. The path includes each
 * compute stream's kernels back to back (the busiest GPU's compute alone) and the pipeline's fill
 * and drain, which a sum per GPU would miss; exposed communication and interference only add to
 * it. A plan skips candidates whose bound is already worse than the results it must beat.
 */
public final class StepBound {
    private StepBound() {
    }

    /** The bound in ns: the latest finish over the graph under those rules. */
    public static long of(TaskGraph graph) {
        return CriticalPath.of(graph, c -> 0).endNs();
    }
}
