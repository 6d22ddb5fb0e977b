package org.clustersim.core.engine;

/**
 * What happened in one simulated run: the start and end of every task, in compact arrays
 * indexed by task id, the counter tracks, and the number of kernel events executed. All metrics are measured
 * from here.
 */
public final class Timeline {
    private final TaskGraph graph;
    private final long[] start;
    private final long[] end;
    private final long events;
    private final long makespan;
    private final Counters counters;
    /** Per compute task, ns lost to communication running beside it; null when interference was off. */
    private final double[] interferenceNs;

    Timeline(TaskGraph graph, long[] start, long[] end, long events, Counters counters, double[] interferenceNs) {
        this.counters = counters;
        this.interferenceNs = interferenceNs;
        this.graph = graph;
        this.start = start;
        this.end = end;
        this.events = events;
        long max = 0;
        for (long e : end) {
            max = Math.max(max, e);
        }
        this.makespan = max;
    }

    /**
     * The part of this timeline that ran {@code part}'s tasks, where {@code part} is one of the
     * graphs joined by {@link TaskGraph#union} and its tasks start at {@code firstTask} of this
     * timeline's graph: each task's start and end (and time lost to interference) as they ran in
     * the union, under the part's own ids. Counters and the event count are the whole run's.
     */
    public Timeline part(TaskGraph part, int firstTask) {
        int n = part.taskCount();
        if (firstTask < 0 || firstTask + n > start.length) {
            throw new IllegalArgumentException("tasks " + firstTask + ".." + (firstTask + n) + " are not in this timeline of "
                    + start.length + " tasks");
        }
        return new Timeline(part, java.util.Arrays.copyOfRange(start, firstTask, firstTask + n),
                java.util.Arrays.copyOfRange(end, firstTask, firstTask + n), events, counters,
                interferenceNs == null ? null : java.util.Arrays.copyOfRange(interferenceNs, firstTask, firstTask + n));
    }

    /**
     * This timeline over {@code same}: a graph of the same tasks and streams in the same order
     * whose devices are named or numbered differently (a shared cluster's trace groups each job's
     * devices together).
     */
    public Timeline over(TaskGraph same) {
        return over(same, counters);
    }

    /** As {@link #over(TaskGraph)}, with {@code tracks} as its counters (an empty set: none). */
    public Timeline over(TaskGraph same, Counters tracks) {
        if (same.taskCount() != start.length || same.streams().size() != graph.streams().size()) {
            throw new IllegalArgumentException("a graph of " + same.taskCount() + " tasks and " + same.streams().size()
                    + " streams is not this timeline's of " + start.length + " and " + graph.streams().size());
        }
        return new Timeline(same, start, end, events, tracks, interferenceNs);
    }

    /** Whether the run slowed compute beside communication (an {@link Interference} other than none). */
    public boolean interferenceModelled() {
        return interferenceNs != null;
    }

    /**
     * Time task {@code id} lost to communication running beside it on its devices: how much
     * longer it took than it would have alone (0 for communication tasks and when interference
     * was off).
     */
    public double interferenceNs(int id) {
        return interferenceNs == null ? 0 : interferenceNs[id];
    }

    public TaskGraph graph() {
        return graph;
    }

    /** Start of task {@code id}, ns. */
    public long start(int id) {
        return start[id];
    }

    /** End of task {@code id}, ns. */
    public long end(int id) {
        return end[id];
    }

    /** Time from the start of the step (t = 0) to the end of its last task, ns. */
    public long makespan() {
        return makespan;
    }

    /** Counter tracks recorded during the run. */
    public Counters counters() {
        return counters;
    }

    /** Kernel events executed during the run. */
    public long events() {
        return events;
    }

    /** Total time tasks occupied a stream, ns. Tasks of one stream never overlap. */
    public long busy(int stream) {
        long sum = 0;
        for (int i = 0, n = graph.streamLength(stream); i < n; i++) {
            int t = graph.streamTask(stream, i);
            sum += end[t] - start[t];
        }
        return sum;
    }

    /** Busy time summed over a device's compute streams, ns. */
    public long computeBusy(int device) {
        long sum = 0;
        for (int i = 0, n = graph.deviceStreamCount(device); i < n; i++) {
            int s = graph.deviceStream(device, i);
            if (graph.isComputeStream(s)) {
                sum += busy(s);
            }
        }
        return sum;
    }

    /** Time within the step a device's compute streams stood idle, ns: makespan minus compute busy time. */
    public long computeIdle(int device) {
        return makespan - computeBusy(device);
    }
}
