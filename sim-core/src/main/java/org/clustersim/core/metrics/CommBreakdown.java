package org.clustersim.core.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.clustersim.core.engine.Stream;
import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;

/**
 * How one device's communication related to its computation, measured from the timeline:
 * for each traffic category (task category of its communication tasks, such as tp-comm,
 * dp-comm or pp-p2p), the time that communication was under way while the compute stream was
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
        return of(timeline, null, 0);
    }

    /**
     * Measures every device within its window of step {@code n} of a run of consecutive steps
     * ({@link StepWindows}): intervals are clipped to the window first.
     */
    public static List<CommBreakdown> of(StepWindows steps, int n) {
        return steps.count() == 1 ? of(steps.timeline()) : of(steps.timeline(), steps, n);
    }

    private static List<CommBreakdown> of(Timeline timeline, StepWindows steps, int step) {
        TaskGraph g = timeline.graph();
        int n = g.devices().size();
        List<List<long[]>> compute = new ArrayList<>();
        List<Map<String, List<long[]>>> comm = new ArrayList<>();
        for (int d = 0; d < n; d++) {
            compute.add(new ArrayList<>());
            comm.add(new TreeMap<>());
        }
        for (Stream s : g.streams()) {
            for (int i = 0; i < g.streamLength(s.id()); i++) {
                int t = g.streamTask(s.id(), i);
                long[] iv = {timeline.start(t), timeline.end(t)};
                if (steps != null) {
                    iv[0] = Math.max(iv[0], steps.windowStart(s.device(), step));
                    iv[1] = Math.min(iv[1], steps.windowEnd(s.device(), step));
                }
                if (iv[1] <= iv[0]) {
                    continue;
                }
                if (s.kind() == StreamKind.COMPUTE) {
                    compute.get(s.device()).add(iv);
                } else {
                    comm.get(s.device()).computeIfAbsent(g.task(t).category(), k -> new ArrayList<>()).add(iv);
                }
            }
        }
        List<CommBreakdown> out = new ArrayList<>(n);
        for (int d = 0; d < n; d++) {
            List<long[]> busy = merge(compute.get(d));
            Map<String, Long> exposed = new TreeMap<>();
            Map<String, Long> overlapped = new TreeMap<>();
            List<long[]> anyComm = new ArrayList<>();
            for (Map.Entry<String, List<long[]>> e : comm.get(d).entrySet()) {
                List<long[]> c = merge(e.getValue());
                long total = length(c);
                long both = intersection(c, busy);
                overlapped.put(e.getKey(), both);
                exposed.put(e.getKey(), total - both);
                anyComm.addAll(c);
            }
            List<long[]> all = merge(anyComm);
            out.add(new CommBreakdown(d, exposed, overlapped, length(all) - intersection(all, busy)));
        }
        return out;
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
