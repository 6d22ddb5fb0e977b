package org.clustersim.core.engine;

/**
 * A graph's tasks ordered by depth, ties in id order: a task's depth is one more than the deepest
 * of the tasks before it - its dependencies and the tasks ahead of it on each of its streams -
 * counting only those numbered before it (a builder numbers most tasks after what they wait for).
 * Tasks that run at about the same time have about the same depth.
 *
 * <p>Why: a builder numbers tasks as it emits them, replica by replica, so with every replica of
 * a 16,384-GPU step simulated, the copies of one task in 128 replicas - which run together - lie
 * 28,000 ids apart, and each task the engine starts or finishes misses the cache in every per-task
 * array. They have one depth, so in this order they sit side by side. Found in one pass over the
 * graph in id order, which reads mostly nearby tasks; following the engine's own release rule
 * instead would cost the very misses it is meant to save.
 */
final class DepthOrder {
    private DepthOrder() {
    }

    /**
     * A numbering by depth: {@code order[i]} is the task numbered i, {@code newId[t]} the number
     * of task t (its inverse, found on the way at no extra pass over scattered ids).
     */
    record Numbering(int[] order, int[] newId) {
    }

    /** Task ids of {@code graph} by depth, ties in id order: a permutation of all of them. */
    static int[] of(TaskGraph graph) {
        return numbering(graph).order();
    }

    /** {@link #of} and its inverse. */
    static Numbering numbering(TaskGraph graph) {
        int n = graph.taskCount();
        int[] depth = new int[n];
        int[] streamDepth = new int[graph.streams().size()];
        int deepest = 0;
        for (int t = 0; t < n; t++) {
            int d = 0;
            for (int i = 0, k = graph.depCount(t); i < k; i++) {
                int before = graph.dep(t, i);
                if (before < t) {
                    d = Math.max(d, depth[before]);
                }
            }
            for (int i = 0, k = graph.streamCount(t); i < k; i++) {
                d = Math.max(d, streamDepth[graph.taskStream(t, i)]);
            }
            depth[t] = ++d;
            for (int i = 0, k = graph.streamCount(t); i < k; i++) {
                streamDepth[graph.taskStream(t, i)] = d;
            }
            deepest = Math.max(deepest, d);
        }
        int[] start = new int[deepest + 2];
        for (int t = 0; t < n; t++) {
            start[depth[t] + 1]++;
        }
        for (int d = 1; d < start.length; d++) {
            start[d] += start[d - 1];
        }
        int[] order = new int[n];
        // depth[] is not needed past here: it takes each task's new id
        int[] newId = depth;
        for (int t = 0; t < n; t++) {
            int i = start[depth[t]]++;
            order[i] = t;
            newId[t] = i;
        }
        return new Numbering(order, newId);
    }
}
