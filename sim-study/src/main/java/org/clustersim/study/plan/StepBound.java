package org.clustersim.study.plan;

import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Work;

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
        int n = graph.taskCount();
        int[] waiting = new int[n];
        // successors along streams: the next task on each stream, as a flat list per task
        int[] nextCount = new int[n];
        int streams = graph.streams().size();
        for (int s = 0; s < streams; s++) {
            for (int i = 1; i < graph.streamLength(s); i++) {
                waiting[graph.streamTask(s, i)]++;
                nextCount[graph.streamTask(s, i - 1)]++;
            }
        }
        int[] nextStart = new int[n + 1];
        for (int t = 0; t < n; t++) {
            nextStart[t + 1] = nextStart[t] + nextCount[t];
        }
        int[] next = new int[nextStart[n]];
        int[] fill = new int[n];
        for (int s = 0; s < streams; s++) {
            for (int i = 1; i < graph.streamLength(s); i++) {
                int before = graph.streamTask(s, i - 1);
                next[nextStart[before] + fill[before]++] = graph.streamTask(s, i);
            }
        }
        int[] queue = new int[n];
        int head = 0;
        int tail = 0;
        for (int t = 0; t < n; t++) {
            waiting[t] += graph.depCount(t);
            if (waiting[t] == 0) {
                queue[tail++] = t;
            }
        }
        long[] start = new long[n];
        long latest = 0;
        while (head < tail) {
            int t = queue[head++];
            long end = start[t] + (graph.work(t) instanceof Work.Compute c ? c.durationNs() : 0);
            latest = Math.max(latest, end);
            for (int i = 0, k = graph.dependentCount(t); i < k; i++) {
                int d = graph.dependent(t, i);
                start[d] = Math.max(start[d], end);
                if (--waiting[d] == 0) {
                    queue[tail++] = d;
                }
            }
            for (int i = nextStart[t]; i < nextStart[t + 1]; i++) {
                int d = next[i];
                start[d] = Math.max(start[d], end);
                if (--waiting[d] == 0) {
                    queue[tail++] = d;
                }
            }
        }
        if (tail < n) {
            throw new IllegalStateException("the task graph has a cycle: " + (n - tail) + " tasks never become ready");
        }
        return latest;
    }
}
