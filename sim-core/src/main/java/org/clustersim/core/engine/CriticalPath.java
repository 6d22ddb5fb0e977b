package org.clustersim.core.engine;

import java.util.function.ToLongFunction;

/**
 * The earliest finish of every task of a graph when each task takes a given time and nothing
 * else slows it: a task starts once its dependencies have finished and the task before it on
 * each of its streams has finished, as in the engine, but flows never share a link with another
 * task's and compute never slows beside communication. With communication at zero this is a
 * lower bound on any simulated timeline of the graph; with each communication at its
 * contention-free estimate it is the step estimate a plan screens with.
 */
public final class CriticalPath {
    private final long[] finish;
    private final long end;

    private CriticalPath(long[] finish, long end) {
        this.finish = finish;
        this.end = end;
    }

    /**
     * Times the graph: compute tasks at their nominal duration, each communication at
     * {@code communicationNs}.
     *
     * @throws IllegalStateException if the graph has a cycle
     */
    public static CriticalPath of(TaskGraph graph, ToLongFunction<Work.Communication> communicationNs) {
        int n = graph.taskCount();
        int[] waiting = new int[n];
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
        long[] finish = new long[n];
        long latest = 0;
        while (head < tail) {
            int t = queue[head++];
            Work w = graph.work(t);
            long end = start[t] + (w instanceof Work.Compute c ? c.durationNs()
                    : communicationNs.applyAsLong((Work.Communication) w));
            finish[t] = end;
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
        return new CriticalPath(finish, latest);
    }

    /** The latest finish over the graph. */
    public long endNs() {
        return end;
    }

    /** When task {@code id} finishes. */
    public long finishNs(int id) {
        return finish[id];
    }
}
