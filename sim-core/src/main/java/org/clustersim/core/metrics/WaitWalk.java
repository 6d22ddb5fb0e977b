package org.clustersim.core.metrics;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntUnaryOperator;

import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.TaskTag;
import org.clustersim.core.engine.Timeline;

/**
 * Traces a device's idle intervals back through the timeline for {@link IdleBreakdown}.
 *
 * <p>A task starts when the last of its predecessors (its dependencies and the task before it
 * on each of its streams) ends, so the predecessor that ended last is the one that held it up.
 * An idle interval [a, b) of a device's compute streams ends where its next compute task starts;
 * from that task the walk follows, hop by hop, the predecessor that held each task up, and
 * charges the part of [a, b) each of them ran in (going back in time from b) to what it was:
 * a transfer, another stage's computation, or something else. Where the chain has a hole (a
 * predecessor ended before its successor started, or the chain ends) the hole is an other wait.
 * An interval that runs to the end of the window with no later compute task on the device is
 * traced from the task that ended the run (the device waited for the step to end).
 *
 * <p>Ties between predecessors that ended together go to one on the device itself, then to one
 * of its own stage, then to the lowest task id, so that identical replicas are charged alike.
 * Reads the finished timeline only: devices can be walked in parallel.
 */
final class WaitWalk {
    private final Timeline timeline;
    private final TaskGraph graph;
    /** The pipeline stage of each device ({@link IdleBreakdown#of}'s stageOf, read once per device). */
    private final int[] stages;
    /** The tasks that end when the run ends. */
    private final int[] lastTasks;
    /** Per tag index of the graph: whether it carries traffic, is an optimizer step, and its traffic kind. */
    private final boolean[] carries;
    private final boolean[] optimizer;
    /** Each tag's slot in {@link #kinds}: the traffic kind its exposed time is listed under. */
    private final int[] kindOfTag;
    /** The distinct kinds, a handful, where the tags are thousands on a large step. */
    private final String[] kinds;
    /**
     * Per task: the predecessor that held it up where no tie makes the answer depend on the device
     * walking (-1: none), {@link #TIED} where one does, {@link #UNKNOWN} until first asked. The
     * devices of a group (a stage's TP and CP ranks) walk the same chains; without this each of
     * them searched a group task's streams again, hop by hop. Written by the parallel walks: an
     * int is written whole and every writer writes the same value.
     */
    private final int[] heldUp;
    private static final int UNKNOWN = Integer.MIN_VALUE;
    private static final int TIED = -2;

    WaitWalk(Timeline timeline, IntUnaryOperator stageOf) {
        this.timeline = timeline;
        this.graph = timeline.graph();
        stages = new int[graph.devices().size()];
        for (int d = 0; d < stages.length; d++) {
            stages[d] = stageOf.applyAsInt(d);
        }
        List<Integer> last = new ArrayList<>();
        long end = timeline.makespan();
        for (int t = 0; t < graph.taskCount(); t++) {
            if (timeline.end(t) == end) {
                last.add(t);
            }
        }
        lastTasks = last.stream().mapToInt(Integer::intValue).toArray();
        int tags = graph.tagCount();
        carries = new boolean[tags];
        optimizer = new boolean[tags];
        kindOfTag = new int[tags];
        Map<String, Integer> slots = new HashMap<>();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < tags; i++) {
            TaskTag tag = graph.tagAt(i);
            carries[i] = tag.traffic() != TaskTag.Traffic.NONE;
            optimizer[i] = tag.pass() == TaskTag.Pass.OPTIMIZER;
            // the traffic kind a transfer's exposed time is listed under (as CommBreakdown's)
            String kind = carries[i] ? tag.traffic().category() : tag.category();
            kindOfTag[i] = slots.computeIfAbsent(kind, k -> {
                names.add(k);
                return names.size() - 1;
            });
        }
        kinds = names.toArray(new String[0]);
        heldUp = new int[graph.taskCount()];
        java.util.Arrays.fill(heldUp, UNKNOWN);
    }

    /** What device {@code d}'s compute streams waited for within [from, to). */
    IdleBreakdown measure(int d, long from, long to) {
        Split split = new Split(d);
        int[] compute = computeTasks(d);
        if (compute.length == 0) {
            // a device the step gives no work (not simulated task by task): nothing to trace
            split.other = Math.max(0, to - from);
            return split.result(Math.max(0, to - from));
        }
        long cursor = from;
        long busy = 0;
        boolean closed = false;
        for (int t : compute) {
            long start = timeline.start(t);
            long end = timeline.end(t);
            if (end <= from && start < from) {
                continue;
            }
            if (start >= to) {
                if (cursor < to) {
                    split.walk(t, false, cursor, to);
                }
                closed = true;
                break;
            }
            if (start > cursor) {
                split.walk(t, false, cursor, start);
            }
            long reached = Math.max(cursor, Math.min(end, to));
            busy += reached - Math.max(cursor, start);
            cursor = reached;
        }
        if (!closed && cursor < to) {
            split.walk(lastTask(d), true, cursor, to);
        }
        return split.result(to - from - busy);
    }

    /**
     * The tasks of the device's compute streams by start (a stream's tasks start in queue order;
     * with several compute streams they are merged).
     */
    private int[] computeTasks(int d) {
        List<Integer> streams = new ArrayList<>();
        for (int k = 0, n = graph.deviceStreamCount(d); k < n; k++) {
            if (graph.isComputeStream(graph.deviceStream(d, k))) {
                streams.add(graph.deviceStream(d, k));
            }
        }
        if (streams.size() == 1) {
            int s = streams.get(0);
            int[] queue = new int[graph.streamLength(s)];
            for (int i = 0; i < queue.length; i++) {
                queue[i] = graph.streamTask(s, i);
            }
            return queue;
        }
        List<Integer> tasks = new ArrayList<>();
        for (int s : streams) {
            for (int i = 0, len = graph.streamLength(s); i < len; i++) {
                tasks.add(graph.streamTask(s, i));
            }
        }
        if (streams.size() > 1) {
            tasks.sort((x, y) -> timeline.start(x) != timeline.start(y)
                    ? Long.compare(timeline.start(x), timeline.start(y)) : Integer.compare(x, y));
        }
        return tasks.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Of the tasks that end the run, the one on device d, else one of its stage, else the first. */
    private int lastTask(int d) {
        int best = -1;
        int bestRank = 3;
        for (int t : lastTasks) {
            int r = rank(t, d);
            if (best < 0 || r < bestRank || r == bestRank && t < best) {
                best = t;
                bestRank = r;
            }
        }
        return best;
    }

    /** The predecessor that held task {@code t} up (ended last), or -1 if it had none. */
    private int heldUpBy(int t, int d) {
        int known = heldUp[t];
        if (known == UNKNOWN) {
            known = heldUpByAlone(t);
            heldUp[t] = known;
        }
        return known != TIED ? known : heldUpByTied(t, d);
    }

    /**
     * {@link #heldUpByTied}'s answer where a single task ended last (no device preference enters),
     * else {@link #TIED}: the same candidates in the same order, ties noted instead of broken.
     */
    private int heldUpByAlone(int t) {
        int best = -1;
        long bestEnd = Long.MIN_VALUE;
        boolean tied = false;
        for (int i = 0, n = graph.depCount(t); i < n; i++) {
            int p = graph.dep(t, i);
            long e = timeline.end(p);
            if (e > bestEnd) {
                best = p;
                bestEnd = e;
                tied = false;
            } else if (e == bestEnd && p != best) {
                tied = true;
            }
        }
        if (bestEnd >= timeline.start(t)) {
            return tied ? TIED : best;
        }
        for (int i = 0, n = graph.streamCount(t); i < n; i++) {
            int p = previousOnStream(t, graph.taskStream(t, i));
            if (p < 0 || p == best) {
                continue;
            }
            long e = timeline.end(p);
            if (e > bestEnd) {
                best = p;
                bestEnd = e;
                tied = false;
            } else if (e == bestEnd) {
                tied = true;
            }
        }
        return tied ? TIED : best;
    }

    /** The predecessor that held task {@code t} up, ties broken for device d ({@link #preferred}). */
    private int heldUpByTied(int t, int d) {
        int best = -1;
        long bestEnd = Long.MIN_VALUE;
        // the best's rank, found when a tie first needs it and kept (as preferred(p, best, d) would rank it again)
        int bestRank = -1;
        for (int i = 0, n = graph.depCount(t); i < n; i++) {
            int p = graph.dep(t, i);
            long e = timeline.end(p);
            if (e > bestEnd) {
                best = p;
                bestEnd = e;
                bestRank = -1;
            } else if (e == bestEnd) {
                if (bestRank < 0) {
                    bestRank = rank(best, d);
                }
                int r = rank(p, d);
                if (r < bestRank || r == bestRank && p < best) {
                    best = p;
                    bestRank = r;
                }
            }
        }
        if (bestEnd >= timeline.start(t)) {
            return best;
        }
        // no dependency explains the start: a stream was still busy with the task before
        for (int i = 0, n = graph.streamCount(t); i < n; i++) {
            int p = previousOnStream(t, graph.taskStream(t, i));
            // a group's tasks share all their streams: the same predecessor on each, never preferred to itself
            if (p < 0 || p == best) {
                continue;
            }
            long e = timeline.end(p);
            if (e > bestEnd || e == bestEnd && preferred(p, best, d)) {
                best = p;
                bestEnd = e;
            }
        }
        return best;
    }

    /** The task queued before {@code t} on stream {@code s}: a stream's tasks start in queue order. */
    private int previousOnStream(int t, int s) {
        long start = timeline.start(t);
        int lo = 0;
        int hi = graph.streamLength(s);
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (timeline.start(graph.streamTask(s, mid)) < start) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        while (lo < graph.streamLength(s) && graph.streamTask(s, lo) != t) {
            lo++;
        }
        return lo > 0 && lo < graph.streamLength(s) ? graph.streamTask(s, lo - 1) : -1;
    }

    /** Whether {@code p} is preferred to {@code q} for device d: on d, then on d's stage, then lower id. */
    private boolean preferred(int p, int q, int d) {
        if (q < 0) {
            return true;
        }
        int rp = rank(p, d);
        int rq = rank(q, d);
        return rp != rq ? rp < rq : p < q;
    }

    /** 0: the task runs on device d; 1: on a device of d's stage; 2: elsewhere. */
    private int rank(int t, int d) {
        int stage = stages[d];
        int best = 2;
        for (int i = 0, n = graph.streamCount(t); i < n; i++) {
            int dev = graph.streamDevice(graph.taskStream(t, i));
            if (dev == d) {
                return 0;
            }
            if (stages[dev] == stage) {
                best = 1;
            }
        }
        return best;
    }

    /** What a task on the chain stands for, seen from device d. */
    private enum Cause { BUBBLE, EXPOSED, OTHER }

    private Cause cause(int t, int d) {
        int tag = graph.tagIndex(t);
        if (!graph.isCompute(t) || carries[tag]) {
            return Cause.EXPOSED;
        }
        if (optimizer[tag]) {
            return Cause.OTHER;
        }
        int stage = stages[d];
        for (int i = 0, n = graph.streamCount(t); i < n; i++) {
            int dev = graph.streamDevice(graph.taskStream(t, i));
            if (dev == d) {
                return Cause.OTHER;
            }
            if (stages[dev] != stage && stages[dev] >= 0) {
                return Cause.BUBBLE;
            }
        }
        return Cause.OTHER;
    }

    /** One device's sums. */
    private final class Split {
        final int device;
        long bubble;
        long exposed;
        long other;
        /** Exposed time by tag index, gathered by traffic kind at the end. */
        /** Exposed time per kind slot; a kind is listed once some time was charged to it. */
        final long[] exposedByKind = new long[kinds.length];
        final boolean[] charged = new boolean[kinds.length];

        Split(int device) {
            this.device = device;
        }

        /**
         * Charges [a, b): traced from the predecessors of {@code head} (a compute task starting at
         * b), or from {@code head} itself when {@code covers} (the task that ended the run).
         */
        void walk(int head, boolean covers, long a, long b) {
            long cursor = b;
            int t = covers ? head : heldUpBy(head, device);
            while (cursor > a) {
                if (t < 0) {
                    other += cursor - a;
                    return;
                }
                long end = Math.min(timeline.end(t), cursor);
                if (end < cursor) {
                    long hole = cursor - Math.max(a, end);
                    other += hole;
                    cursor -= hole;
                    if (cursor <= a) {
                        return;
                    }
                }
                long start = Math.max(a, Math.min(timeline.start(t), cursor));
                charge(t, cursor - start);
                cursor = start;
                t = heldUpBy(t, device);
            }
        }

        private void charge(int t, long ns) {
            if (ns <= 0) {
                return;
            }
            switch (cause(t, device)) {
                case BUBBLE -> bubble += ns;
                case EXPOSED -> {
                    exposed += ns;
                    int kind = kindOfTag[graph.tagIndex(t)];
                    exposedByKind[kind] += ns;
                    charged[kind] = true;
                }
                case OTHER -> other += ns;
            }
        }

        IdleBreakdown result(long idle) {
            TreeMap<String, Long> byKind = new TreeMap<>();
            for (int k = 0; k < kinds.length; k++) {
                if (charged[k]) {
                    byKind.put(kinds[k], exposedByKind[k]);
                }
            }
            return new IdleBreakdown(device, idle, bubble, exposed, other, byKind);
        }
    }
}
