package org.clustersim.cli.report;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.TaskTag;
import org.clustersim.core.engine.Timeline;

/**
 * The pipeline as it ran: one lane per pipeline rank (its TP rank 0 GPU of replica 0), the
 * compute tasks of the simulated timeline as bars, coloured by microbatch (one colour each,
 * {@link Palette#microbatch}) and pass (forward plain, backward darker, weight gradient lighter). A microbatch's layers on a rank
 * are merged into one bar. The drawing is bounded whatever the run's size: at most {@value
 * #MAX_RANKS} lanes, and a lane with more than {@value #MAX_BARS} bars is redrawn at {@value
 * #COLUMNS} columns, each showing the microbatch and pass that filled most of it.
 */
public final class PipelineOverview {
    static final int MAX_RANKS = 64;
    static final int MAX_BARS = 800;
    static final int COLUMNS = 1000;
    /** Microbatches given a legend entry of their own; the rest are summed up in one. */
    static final int LEGEND_MICROBATCHES = 8;
    private static final String OTHER = "#79706e";

    private PipelineOverview() {
    }

    /** A run of tasks of one pass of one microbatch (mb -1: not a pipeline pass). */
    private record Key(String pass, int microbatch) {
        String colour() {
            if (microbatch < 0) {
                return OTHER;
            }
            String base = Palette.microbatch(microbatch);
            return switch (pass) {
                case "B" -> Palette.darker(base, 0.3);
                case "W" -> Palette.lighter(base, 0.5);
                case "X" -> Palette.darker(base, 0.55);
                default -> base;
            };
        }

        String describe() {
            String what = switch (pass) {
                case "F" -> "forward";
                case "B" -> "backward";
                case "W" -> "weight gradient";
                case "X" -> "forward + backward (overlapped)";
                default -> pass;
            };
            return microbatch < 0 ? what : what + " of microbatch " + microbatch;
        }
    }

    public static TimelineChart chart(RunData data, String idPrefix) {
        return chart(data, idPrefix, new TimeAxis(data.run().timeline().makespan()));
    }

    /** The chart over {@code time}, the report's shared time axis. */
    public static TimelineChart chart(RunData data, String idPrefix, TimeAxis time) {
        Timeline timeline = data.run().timeline();
        TaskGraph graph = timeline.graph();
        long end = timeline.makespan();
        long resolution = Math.max(1, end / COLUMNS);
        List<TimelineChart.Lane> lanes = new ArrayList<>();
        for (int p : data.shownRanks(MAX_RANKS)) {
            int device = data.rankDevice(p);
            List<Integer> tasks = new ArrayList<>();
            for (int i = 0; i < graph.deviceStreamCount(device); i++) {
                int s = graph.deviceStream(device, i);
                if (graph.isComputeStream(s)) {
                    for (int k = 0; k < graph.streamLength(s); k++) {
                        tasks.add(graph.streamTask(s, k));
                    }
                }
            }
            tasks.sort((a, b) -> Long.compare(timeline.start(a), timeline.start(b)));
            List<TimelineChart.Bar> bars = merged(tasks, timeline, graph, resolution, p);
            if (bars.size() > MAX_BARS) {
                bars = columns(tasks, timeline, graph, end, p);
            }
            lanes.add(new TimelineChart.Lane("rank " + p + " " + graph.devices().get(device).name(), bars));
        }
        int microbatches = Math.max(1, data.scenario().microbatches());
        int shown = Math.min(LEGEND_MICROBATCHES, microbatches);
        List<Legend> legend = new ArrayList<>();
        for (int mb = 0; mb < shown; mb++) {
            legend.add(new Legend("mb " + mb, Palette.microbatch(mb)));
        }
        if (microbatches > shown) {
            legend.add(new Legend("... mb " + (microbatches - 1) + ": each of the " + microbatches
                    + " microbatches its own colour (hover a bar for its number)", Palette.microbatch(microbatches - 1)));
        }
        legend.add(new Legend("backward: darker", Palette.darker(Palette.microbatch(0), 0.3)));
        legend.add(new Legend("weight gradient: lighter", Palette.lighter(Palette.microbatch(0), 0.5)));
        legend.add(new Legend("other compute (optimizer, copies)", OTHER));
        int pp = data.step().pp();
        return new TimelineChart(idPrefix + "pipeline", "Pipeline timeline",
                "Compute of each pipeline rank over the simulated run, one bar per microbatch pass (hover for "
                        + "details); gaps are idle time, split in the step breakdown" + (pp > MAX_RANKS ? "; " + MAX_RANKS + " of " + pp
                        + " ranks, evenly spaced" : "") + ".", lanes, time.endNs(), legend);
    }

    /**
     * A task's pass and microbatch, from its tag: a pipeline pass (recomputation counts with its
     * backward) by letter; other compute (optimizer, shard copies) under its category, with no
     * microbatch.
     */
    private static Key key(TaskGraph graph, int task) {
        TaskTag tag = graph.tag(task);
        String pass = tag.traffic() != TaskTag.Traffic.NONE ? null : switch (tag.pass()) {
            case FORWARD -> "F";
            case BACKWARD, BACKWARD_INPUT -> "B";
            case BACKWARD_WEIGHT -> "W";
            case OVERLAPPED -> "X";
            default -> null;
        };
        return pass != null ? new Key(pass, tag.microbatch()) : new Key(graph.category(task), -1);
    }

    /** Consecutive tasks of one key, closer than the resolution, as one bar. */
    private static List<TimelineChart.Bar> merged(List<Integer> tasks, Timeline timeline, TaskGraph graph,
                                                  long resolution, int rank) {
        List<TimelineChart.Bar> bars = new ArrayList<>();
        Key open = null;
        long from = 0;
        long to = 0;
        int count = 0;
        for (int t : tasks) {
            Key k = key(graph, t);
            long s = timeline.start(t);
            long e = timeline.end(t);
            if (open != null && k.equals(open) && s - to <= resolution) {
                to = Math.max(to, e);
                count++;
                continue;
            }
            if (open != null) {
                bars.add(bar(open, from, to, count, rank));
            }
            open = k;
            from = s;
            to = e;
            count = 1;
        }
        if (open != null) {
            bars.add(bar(open, from, to, count, rank));
        }
        return bars;
    }

    private static TimelineChart.Bar bar(Key k, long from, long to, int tasks, int rank) {
        String what = tasks > 0 ? String.format(java.util.Locale.ROOT, "%s (%d task%s)", k.describe(), tasks,
                tasks == 1 ? "" : "s") : "mostly " + k.describe();
        return new TimelineChart.Bar(from, to, k.colour(), String.format(java.util.Locale.ROOT,
                "rank %d: %s, %s from %s", rank, what, Axis.DURATION_NS.format(to - from),
                Axis.DURATION_NS.format(from)));
    }

    /** The lane at a fixed number of columns: each shows the key that computed longest in it; idle columns stay empty. */
    private static List<TimelineChart.Bar> columns(List<Integer> tasks, Timeline timeline, TaskGraph graph, long end,
                                                   int rank) {
        List<Map<Key, Long>> fill = new ArrayList<>(COLUMNS);
        for (int c = 0; c < COLUMNS; c++) {
            fill.add(new HashMap<>(4));
        }
        double width = Math.max(1, end) / (double) COLUMNS;
        for (int t : tasks) {
            long s = timeline.start(t);
            long e = timeline.end(t);
            Key k = key(graph, t);
            int c0 = (int) Math.min(COLUMNS - 1, s / width);
            int c1 = (int) Math.min(COLUMNS - 1, Math.max(s, e - 1) / width);
            for (int c = c0; c <= c1; c++) {
                long lo = Math.max(s, (long) (c * width));
                long hi = Math.min(e, (long) ((c + 1) * width));
                if (hi > lo) {
                    fill.get(c).merge(k, hi - lo, Long::sum);
                }
            }
        }
        List<TimelineChart.Bar> bars = new ArrayList<>();
        Key open = null;
        int from = 0;
        for (int c = 0; c <= COLUMNS; c++) {
            Key k = null;
            if (c < COLUMNS) {
                long half = (long) (width / 2);
                long best = 0;
                for (Map.Entry<Key, Long> e : fill.get(c).entrySet()) {
                    if (e.getValue() > best || e.getValue() == best && k != null && e.getKey().toString()
                            .compareTo(k.toString()) < 0) {
                        best = e.getValue();
                        k = e.getKey();
                    }
                }
                long busy = fill.get(c).values().stream().mapToLong(Long::longValue).sum();
                if (busy < half) {
                    k = null; // mostly idle: draw the gap
                }
            }
            if (!java.util.Objects.equals(k, open)) {
                if (open != null) {
                    bars.add(bar(open, (long) (from * width), (long) (c * width), 0, rank));
                }
                open = k;
                from = c;
            }
        }
        return bars;
    }
}
