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
        return chart(data, idPrefix, time, null);
    }

    /**
     * A shared cluster's chart: each link's row marked with the colour of the job whose flows
     * crossed it, or as shared where several jobs' did, each job's share of the bytes in the
     * mark's and the cells' hover text.
     *
     * @param jobs what each job's flows put on each link, in file order (job i has colour i of {@link Palette#cycle})
     */
    public static HeatMap chart(RunData data, String idPrefix, List<JobLinks> jobs) {
        return chart(data, idPrefix, new TimeAxis(data.run().timeline().makespan()), List.copyOf(jobs));
    }

    /** A job of a shared cluster and what its flows put on each link. */
    public record JobLinks(String name, LinkUsage links) {
    }

    /** The colour of a link several jobs crossed. */
    static final String SHARED = "#333333";

    private static HeatMap chart(RunData data, String idPrefix, TimeAxis time, List<JobLinks> jobs) {
        LinkUsage usage = data.run().links();
        long end = time.endNs();
        List<Link> busiest = busiest(usage, data.run().timeline().makespan());
        List<String> rows = new ArrayList<>();
        List<double[]> cells = new ArrayList<>();
        List<String[]> tips = new ArrayList<>();
        List<String> markColours = new ArrayList<>();
        List<String> markTips = new ArrayList<>();
        boolean missing = false;
        for (Link l : busiest) {
            Counters.Series s = data.track(LinkUsage.TRACK_PREFIX + l.name());
            if (s == null) {
                missing = true;
                continue;
            }
            double capacity = l.bandwidthBytesPerS() / 1e9; // the tracks are in GB/s
            double[] mean = binMeans(s.timesNs(), s.values(), end, BINS);
            String owners = "";
            if (jobs != null) {
                Owners o = owners(l, jobs);
                markColours.add(o.colour());
                markTips.add(l.name() + ": " + o.words());
                owners = "; " + o.words();
            }
            String[] tip = new String[BINS];
            for (int b = 0; b < BINS; b++) {
                mean[b] = Math.max(0, Math.min(1, mean[b] / capacity));
                tip[b] = String.format(Locale.ROOT, "%.0f%% of %.0f GB/s, %s-%s", 100 * mean[b], capacity,
                        Axis.DURATION_NS.format(b * (double) end / BINS),
                        Axis.DURATION_NS.format((b + 1) * (double) end / BINS)) + owners;
            }
            rows.add(l.name() + " (" + org.clustersim.study.whatif.Cable.classOf(l) + ")");
            cells.add(mean);
            tips.add(tip);
        }
        HeatMap.RowMarks marks = null;
        String byJob = "";
        if (jobs != null) {
            List<Legend> legend = new ArrayList<>();
            for (int j = 0; j < jobs.size(); j++) {
                legend.add(new Legend(jobs.get(j).name(), Palette.cycle(j)));
            }
            legend.add(new Legend("shared", SHARED));
            marks = new HeatMap.RowMarks(markColours, markTips, legend);
            byJob = " The swatch left of each link is the colour of the job whose flows crossed it, dark grey where "
                    + "several jobs' did (each job's share of the link's bytes in its hover text), from each job's "
                    + "run alone on its servers: the same routes as together under static routing.";
        }
        return new HeatMap(idPrefix + "links", "Busiest links over time",
                "Utilisation of the " + rows.size() + " busiest links (highest mean utilisation over the run, the "
                        + "busiest " + PER_CLASS + " of every link class first, so scale-out links show beside NVLink)"
                        + (missing ? " (links without a throughput track left out)" : "")
                        + ": each cell is the link's mean throughput over 1/" + BINS
                        + " of the run, as a share of its bandwidth, from the network model's rates." + byJob,
                rows, cells.toArray(new double[0][]), end, tips.toArray(new String[0][]), marks);
    }

    /** Which jobs crossed a link: its mark's colour and words. */
    record Owners(String colour, String words) {
    }

    /**
     * The jobs whose flows crossed {@code l}: one job's colour and name, or {@link #SHARED} and
     * each job's share of the bytes, in file order; "no job alone" where only the jobs together did
     * (routes chosen by load).
     */
    static Owners owners(Link l, List<JobLinks> jobs) {
        long total = 0;
        int crossing = 0;
        int only = -1;
        for (int j = 0; j < jobs.size(); j++) {
            long b = jobs.get(j).links().bytes(l.id());
            if (b > 0) {
                total += b;
                crossing++;
                only = j;
            }
        }
        if (crossing == 0) {
            return new Owners("#cccccc", "crossed by no job alone (routes chosen by load together)");
        }
        if (crossing == 1) {
            return new Owners(Palette.cycle(only), "job " + jobs.get(only).name() + " only");
        }
        StringBuilder words = new StringBuilder("shared by");
        String sep = " ";
        for (JobLinks j : jobs) {
            long b = j.links().bytes(l.id());
            if (b > 0) {
                words.append(sep).append(String.format(Locale.ROOT, "%s %.0f%%", j.name(), 100.0 * b / total));
                sep = ", ";
            }
        }
        return new Owners(SHARED, words.append(" of its bytes").toString());
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
