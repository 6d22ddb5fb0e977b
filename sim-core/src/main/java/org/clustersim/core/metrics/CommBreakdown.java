package org.clustersim.core.metrics;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.TaskTag;
import org.clustersim.core.engine.Timeline;

/**
 * How one device's communication related to its computation, measured from the timeline:
 * for each traffic category (the category of its communication tasks' traffic kind, {@link
 * TaskTag.Traffic#category}, such as tp-comm, dp-comm or pp-p2p; an untyped task's own
 * category), the time that communication was under way while the compute stream was
 * busy (overlapped) and while it was idle (exposed: the device had nothing to compute).
 * Intervals of several tasks of one category are merged first, so concurrent transfers count
 * once.
 *
 * @param device      device index
 * @param exposedNs   per category, communication time while compute was idle
 * @param overlappedNs per category, communication time while compute was busy
 * @param exposedAnyNs time during which compute was idle and any communication was under way
 */
public record CommBreakdown(int device, Map<String, Long> exposedNs, Map<String, Long> overlappedNs,
                            long exposedAnyNs) {

    /** Measures every device of a run. */
    public static List<CommBreakdown> of(Timeline timeline) {
        return of(timeline, null, 0, true);
    }

    /**
     * Measures every device within its window of step {@code n} of a run of consecutive steps
     * ({@link StepWindows}): intervals are clipped to the window first.
     */
    public static List<CommBreakdown> of(StepWindows steps, int n) {
        return steps.count() == 1 ? of(steps.timeline()) : of(steps.timeline(), steps, n, true);
    }

    /**
     * Per device, {@link #overlappedNs} alone of {@link #of(StepWindows, int)}: all the step's
     * figures report of it (their exposed time is {@link IdleBreakdown}'s). It leaves out the
     * union of every category's communication that {@link #exposedAnyNs} needs, a second sort of
     * each device's transfers: two thirds of the measurement's samples on the 16,384-GPU step
     * with every replica simulated (docs/benchmarks.md).
     */
    public static List<Map<String, Long>> overlapped(StepWindows steps, int n) {
        List<CommBreakdown> measured = of(steps.timeline(), steps.count() == 1 ? null : steps, n, false);
        List<Map<String, Long>> out = new ArrayList<>(measured.size());
        for (CommBreakdown c : measured) {
            out.add(c.overlappedNs());
        }
        return out;
    }

    /**
     * One pass over each device's streams: its tasks' intervals (clipped to the device's window)
     * go into reusable primitive buffers, compute and one per traffic category, whose unions are
     * measured by sorting starts and ends apart ({@link Intervals#union}); nothing is kept per
     * task, so the memory is that of one device's intervals per thread. Devices are measured in
     * parallel (each reads the finished timeline only) and listed in device order. Without
     * {@code any} their {@link #exposedAnyNs} is left 0, unmeasured ({@link #overlapped}).
     */
    private static List<CommBreakdown> of(Timeline timeline, StepWindows steps, int step, boolean any) {
        int n = timeline.graph().devices().size();
        CommBreakdown[] out = new CommBreakdown[n];
        ThreadLocal<Scratch> scratch = ThreadLocal.withInitial(Scratch::new);
        java.util.stream.IntStream.range(0, n).parallel()
                .forEach(d -> out[d] = scratch.get().measure(timeline, steps, step, d, any));
        return List.of(out);
    }

    /** One thread's buffers and traffic categories. */
    private static final class Scratch {
        final Map<String, Integer> slotOf = new HashMap<>();
        /** Per tag index of the graph, its category's slot; -1 until first seen. */
        int[] slotOfTag = new int[0];
        final List<String> slotNames = new ArrayList<>();
        final Intervals compute = new Intervals();
        final List<Intervals> comm = new ArrayList<>();
        final Intervals busy = new Intervals();
        final Intervals merged = new Intervals();
        final Intervals anyComm = new Intervals();
        final Intervals all = new Intervals();

        CommBreakdown measure(Timeline timeline, StepWindows steps, int step, int d, boolean any) {
            compute.clear();
            for (Intervals c : comm) {
                c.clear();
            }
            long from = steps == null ? Long.MIN_VALUE : steps.windowStart(d, step);
            long to = steps == null ? Long.MAX_VALUE : steps.windowEnd(d, step);
            TaskGraph g = timeline.graph();
            if (slotOfTag.length != g.tagCount()) {
                slotOfTag = new int[g.tagCount()];
                Arrays.fill(slotOfTag, -1);
            }
            for (int k = 0, streams = g.deviceStreamCount(d); k < streams; k++) {
                int s = g.deviceStream(d, k);
                collect(timeline, s, from, to, g.isComputeStream(s) ? compute : null);
            }
            return measured(d, any);
        }

        /*
         * The loop below runs for every task of every device (tens of millions of visits for the
         * largest steps). It is kept small, and free of branches that profiling never sees taken,
         * so the JIT compiles it early and once (the measurements behind this: docs/benchmarks.md,
         * "Scale", ninth round).
         */

        /**
         * A stream's task intervals, clipped to [from, to): all into {@code only}, or, where that
         * is null, each into its category's list.
         */
        private void collect(Timeline timeline, int s, long from, long to, Intervals only) {
            TaskGraph g = timeline.graph();
            for (int i = 0, len = g.streamLength(s); i < len; i++) {
                int t = g.streamTask(s, i);
                long lo = Math.max(timeline.start(t), from);
                long hi = Math.min(timeline.end(t), to);
                if (hi > lo) {
                    (only != null ? only : comm.get(slotOfTag(g, g.tagIndex(t)))).add(lo, hi);
                }
            }
        }

        /** The slot of the tag of index {@code tag}: by its traffic's category, or an untyped task's own. */
        private int slotOfTag(TaskGraph g, int tag) {
            int slot = slotOfTag[tag];
            return slot >= 0 ? slot : (slotOfTag[tag] = slotOf(kindOf(g.tagAt(tag))));
        }

        private static String kindOf(TaskTag tag) {
            return tag.traffic() != TaskTag.Traffic.NONE ? tag.traffic().category() : tag.category();
        }

        /** The index of a traffic category's interval list, made on first sight. */
        private int slotOf(String category) {
            Integer slot = slotOf.get(category);
            return slot != null ? slot : newSlot(category);
        }

        private int newSlot(String category) {
            int slot = slotNames.size();
            slotOf.put(category, slot);
            slotNames.add(category);
            comm.add(new Intervals());
            return slot;
        }

        /** The breakdown of device d from the intervals collected; {@code any}: with {@link #exposedAnyNs}. */
        private CommBreakdown measured(int d, boolean any) {
            compute.union(busy);
            Map<String, Long> exposed = new TreeMap<>();
            Map<String, Long> overlapped = new TreeMap<>();
            anyComm.clear();
            for (int slot = 0; slot < comm.size(); slot++) {
                Intervals c = comm.get(slot);
                if (c.size == 0) {
                    continue;
                }
                c.union(merged);
                long total = merged.length();
                long both = merged.intersection(busy);
                overlapped.put(slotNames.get(slot), both);
                exposed.put(slotNames.get(slot), total - both);
                if (any) {
                    anyComm.addAll(merged);
                }
            }
            if (!any) {
                return new CommBreakdown(d, exposed, overlapped, 0);
            }
            anyComm.union(all);
            return new CommBreakdown(d, exposed, overlapped, all.length() - all.intersection(busy));
        }
    }

    /** A growable list of half-open intervals [lo, hi) in two primitive arrays. */
    static final class Intervals {
        long[] lo = new long[16];
        long[] hi = new long[16];
        int size;

        void clear() {
            size = 0;
        }

        void add(long from, long to) {
            if (size == lo.length) {
                lo = Arrays.copyOf(lo, size * 2);
                hi = Arrays.copyOf(hi, size * 2);
            }
            lo[size] = from;
            hi[size++] = to;
        }

        void addAll(Intervals other) {
            for (int i = 0; i < other.size; i++) {
                add(other.lo[i], other.hi[i]);
            }
        }

        /**
         * Writes the union of these intervals into {@code out} as sorted, disjoint intervals
         * (touching ones joined). A point is covered when more intervals have started than
         * ended there, which depends only on the sorted starts and the sorted ends, so they are
         * sorted apart. Sorts this list's arrays in place.
         */
        void union(Intervals out) {
            out.clear();
            Arrays.sort(lo, 0, size);
            Arrays.sort(hi, 0, size);
            int i = 0;
            int j = 0;
            int open = 0;
            long from = 0;
            while (i < size) {
                if (lo[i] <= hi[j]) {
                    if (open++ == 0) {
                        from = lo[i];
                    }
                    i++;
                } else {
                    if (--open == 0) {
                        out.add(from, hi[j]);
                    }
                    j++;
                }
            }
            if (size > 0) {
                out.add(from, hi[size - 1]);
            }
        }

        long length() {
            long sum = 0;
            for (int i = 0; i < size; i++) {
                sum += hi[i] - lo[i];
            }
            return sum;
        }

        /** Total overlap of two unions (sorted, disjoint). */
        long intersection(Intervals b) {
            long sum = 0;
            int i = 0;
            int j = 0;
            while (i < size && j < b.size) {
                long x = Math.max(lo[i], b.lo[j]);
                long y = Math.min(hi[i], b.hi[j]);
                if (y > x) {
                    sum += y - x;
                }
                if (hi[i] < b.hi[j]) {
                    i++;
                } else {
                    j++;
                }
            }
            return sum;
        }
    }

    static List<long[]> merge(List<long[]> intervals) {
        List<long[]> sorted = new ArrayList<>(intervals);
        sorted.sort((a, b) -> Long.compare(a[0], b[0]));
        List<long[]> out = new ArrayList<>();
        for (long[] iv : sorted) {
            if (!out.isEmpty() && iv[0] <= out.get(out.size() - 1)[1]) {
                long[] last = out.get(out.size() - 1);
                last[1] = Math.max(last[1], iv[1]);
            } else {
                out.add(new long[] {iv[0], iv[1]});
            }
        }
        return out;
    }

    static long length(List<long[]> merged) {
        long sum = 0;
        for (long[] iv : merged) {
            sum += iv[1] - iv[0];
        }
        return sum;
    }

    /** Total overlap of two merged, sorted interval lists. */
    static long intersection(List<long[]> a, List<long[]> b) {
        long sum = 0;
        int i = 0;
        int j = 0;
        while (i < a.size() && j < b.size()) {
            long lo = Math.max(a.get(i)[0], b.get(j)[0]);
            long hi = Math.min(a.get(i)[1], b.get(j)[1]);
            if (hi > lo) {
                sum += hi - lo;
            }
            if (a.get(i)[1] < b.get(j)[1]) {
                i++;
            } else {
                j++;
            }
        }
        return sum;
    }
}
