package org.clustersim.cli.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

import org.clustersim.core.engine.Counters;
import org.clustersim.core.network.LinkUsage;
import org.clustersim.topology.Link;

/**
 * The busiest links' utilisation over the run: {@value #LINKS} links by mean utilisation, each
 * link class represented ({@link #busiest}), each link's throughput counter track (the rate the network model gave its flows)
 * averaged over {@value #BINS} equal time bins and divided by the link's bandwidth.
 */
public final class LinkHeat {
    static final int LINKS = 24;
    static final int BINS = 120;
    static final int PER_CLASS = 4;

    private LinkHeat() {
    }

    public static HeatMap chart(RunData data, String idPrefix) {
        return chart(data, idPrefix, new TimeAxis(data.run().timeline().makespan()));
    }

    /** The chart over {@code time}, the report's shared time axis: its bins split 0 to the axis's end. */
    public static HeatMap chart(RunData data, String idPrefix, TimeAxis time) {
        LinkUsage usage = data.run().links();
        long end = time.endNs();
        List<Link> busiest = busiest(usage, data.run().timeline().makespan());
        List<String> rows = new ArrayList<>();
        List<double[]> cells = new ArrayList<>();
        List<String[]> tips = new ArrayList<>();
        boolean missing = false;
        for (Link l : busiest) {
            Counters.Series s = data.track(LinkUsage.TRACK_PREFIX + l.name());
            if (s == null) {
                missing = true;
                continue;
            }
            double capacity = l.bandwidthBytesPerS() / 1e9; // the tracks are in GB/s
            double[] mean = binMeans(s.timesNs(), s.values(), end, BINS);
            String[] tip = new String[BINS];
            for (int b = 0; b < BINS; b++) {
                mean[b] = Math.max(0, Math.min(1, mean[b] / capacity));
                tip[b] = String.format(Locale.ROOT, "%.0f%% of %.0f GB/s, %s-%s", 100 * mean[b], capacity,
                        Axis.DURATION_NS.format(b * (double) end / BINS),
                        Axis.DURATION_NS.format((b + 1) * (double) end / BINS));
            }
            rows.add(l.name() + " (" + org.clustersim.study.whatif.Cable.classOf(l) + ")");
            cells.add(mean);
            tips.add(tip);
        }
        return new HeatMap(idPrefix + "links", "Busiest links over time",
                "Utilisation of the " + rows.size() + " busiest links (highest mean utilisation over the run, the "
                        + "busiest " + PER_CLASS + " of every link class first, so scale-out links show beside NVLink)"
                        + (missing ? " (links without a throughput track left out)" : "")
                        + ": each cell is the link's mean throughput over 1/" + BINS
                        + " of the run, as a share of its bandwidth, from the network model's rates.",
                rows, cells.toArray(new double[0][]), end, tips.toArray(new String[0][]));
    }

    /**
     * Up to {@value #LINKS} links that carried traffic, by mean utilisation over the run (bytes over
     * bandwidth x run time): first the top {@value #PER_CLASS} of each link class, then the rest by
     * utilisation; listed busiest first.
     */
    static List<Link> busiest(LinkUsage usage, long end) {
        Comparator<Link> byUse = Comparator.comparingDouble((Link l) -> -usage.bytes(l.id()) / l.bandwidthBytesPerS())
                .thenComparing(Link::name);
        List<Link> used = usage.topology().links().stream().filter(l -> usage.bytes(l.id()) > 0).sorted(byUse)
                .toList();
        java.util.LinkedHashSet<Link> chosen = new java.util.LinkedHashSet<>();
        java.util.Map<Object, Integer> perClass = new java.util.HashMap<>();
        for (Link l : used) {
            if (chosen.size() < LINKS && perClass.merge(l.kind(), 1, Integer::sum) <= PER_CLASS) {
                chosen.add(l);
            }
        }
        for (Link l : used) {
            if (chosen.size() >= LINKS) {
                break;
            }
            chosen.add(l);
        }
        return chosen.stream().sorted(byUse).toList();
    }

    /** Time-weighted mean of a step function (value from each time on) over {@code bins} equal bins of [0, end). */
    static double[] binMeans(long[] times, double[] values, long end, int bins) {
        double[] sum = new double[bins];
        double width = Math.max(1, end) / (double) bins;
        for (int i = 0; i < times.length; i++) {
            double from = times[i];
            double to = i + 1 < times.length ? times[i + 1] : end;
            double v = values[i];
            if (v == 0 || to <= from) {
                continue;
            }
            int b0 = (int) Math.min(bins - 1, from / width);
            int b1 = (int) Math.min(bins - 1, Math.max(from, to - 1e-9) / width);
            for (int b = b0; b <= b1; b++) {
                double lo = Math.max(from, b * width);
                double hi = Math.min(to, (b + 1) * width);
                if (hi > lo) {
                    sum[b] += v * (hi - lo);
                }
            }
        }
        for (int b = 0; b < bins; b++) {
            sum[b] /= width;
        }
        return sum;
    }
}
