package org.clustersim.cli.report;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.engine.Counters;

/**
 * Memory over the run per pipeline stage, from the memory counter tracks of the timeline
 * (model states plus the activations alive at each instant, {@link
 * org.clustersim.cli.output.MemoryTracks}), against the accelerator's HBM. Lines are drawn as
 * steps; a track with more than {@value #BUCKETS} changes is reduced to its value entering,
 * its lowest and its highest within each of {@value #BUCKETS} time buckets, so peaks survive.
 */
public final class MemoryOverTime {
    static final int BUCKETS = 300;

    private MemoryOverTime() {
    }

    public static LineChart chart(RunData data, String idPrefix) {
        return chart(data, idPrefix, new TimeAxis(data.run().timeline().makespan()));
    }

    /** The chart over {@code time}, the report's shared time axis. */
    public static LineChart chart(RunData data, String idPrefix, TimeAxis time) {
        long end = data.run().timeline().makespan();
        List<LineChart.Series> lines = new ArrayList<>();
        int[] ranks = data.shownRanks(16);
        for (int i = 0; i < ranks.length; i++) {
            int p = ranks[i];
            String name = data.run().timeline().graph().devices().get(data.rankDevice(p)).name();
            Counters.Series s = data.track("memory " + name);
            if (s == null) {
                continue;
            }
            double[][] xy = steps(s.timesNs(), s.values(), end);
            for (int k = 0; k < xy[1].length; k++) {
                xy[1][k] *= 1e9; // the tracks are in GB
            }
            lines.add(new LineChart.Series("stage " + p, Palette.cycle(i), xy[0], xy[1]));
        }
        long hbm = data.scenario().cluster().accelerator().hbmBytes();
        int pp = data.step().pp();
        return new LineChart(idPrefix + "memory", "Memory per pipeline stage",
                "Each stage's " + org.clustersim.cli.output.DeviceWords.of(data.scenario().cluster()).device()
                        + " memory over the simulated run (TP rank 0 of replica 0): weights, gradients, "
                        + "optimizer state and workspace, plus the activations alive at each instant"
                        + (pp > ranks.length ? "; " + ranks.length + " of " + pp + " stages, evenly spaced" : "")
                        + ". The dashed line is the HBM capacity.",
                lines, List.of(new LineChart.Reference("HBM " + Axis.GB.format(hbm), hbm, "#c00")),
                Axis.DURATION_NS, Axis.GB, time);
    }

    /**
     * A step function (value from each time on, until {@code end}) as line points, bucketed
     * when long.
     *
     * @return xs and ys
     */
    static double[][] steps(long[] times, double[] values, long end) {
        List<double[]> pts = new ArrayList<>();
        if (times.length <= BUCKETS) {
            for (int i = 0; i < times.length; i++) {
                if (i > 0) {
                    pts.add(new double[] {times[i], values[i - 1]});
                }
                pts.add(new double[] {times[i], values[i]});
            }
        } else {
            double width = Math.max(1, end) / (double) BUCKETS;
            int i = 0;
            double entering = 0;
            for (int b = 0; b < BUCKETS && i < times.length; b++) {
                double bEnd = (b + 1) * width;
                if (times[i] >= bEnd) {
                    continue;
                }
                int lo = i;
                int hi = i;
                int first = i;
                while (i < times.length && (times[i] < bEnd || b == BUCKETS - 1)) {
                    lo = values[i] < values[lo] ? i : lo;
                    hi = values[i] > values[hi] ? i : hi;
                    i++;
                }
                int last = i - 1;
                pts.add(new double[] {times[first], entering});
                int a = Math.min(lo, hi);
                int c = Math.max(lo, hi);
                pts.add(new double[] {times[a], values[a]});
                pts.add(new double[] {times[c], values[c]});
                pts.add(new double[] {times[last], values[last]});
                entering = values[last];
            }
        }
        if (times.length > 0) {
            pts.add(new double[] {Math.max(end, times[times.length - 1]), values[values.length - 1]});
        }
        double[][] out = new double[2][pts.size()];
        for (int k = 0; k < pts.size(); k++) {
            out[0][k] = pts.get(k)[0];
            out[1][k] = pts.get(k)[1];
        }
        return out;
    }
}
