package org.clustersim.cli.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.clustersim.cli.output.DeviceWords;
import org.clustersim.cli.output.ParallelGroups;
import org.clustersim.cli.output.RunSummary;
import org.clustersim.core.engine.TaskTag;

/**
 * The blocks that show one simulated run: the headline figures, where each rank's step time
 * goes, the pipeline timeline, memory per stage, the busiest links over time, and per
 * parallel group what it spans and how much of its traffic was exposed.
 */
public final class RunPage {
    private RunPage() {
    }

    /** The whole page of one run (for {@code run --report} and {@code clustersim report}). */
    public static Report report(RunData data, String generator) {
        List<Block> blocks = new ArrayList<>();
        blocks.add(new Block.Heading("Summary", 2));
        blocks.add(summary(data, ""));
        blocks.addAll(figures(data, "", true));
        blocks.add(new Block.Heading("Parallel groups", 2));
        blocks.add(groups(data, ""));
        blocks.add(traffic(data, ""));
        return new Report("clustersim report: " + data.scenario().name(), subtitle(data, generator), blocks);
    }

    static String subtitle(RunData data, String generator) {
        var p = data.scenario().parallelism();
        return String.format(Locale.ROOT, "%s, %s (%s), tp=%d cp=%d pp=%d dp=%d, %s schedule, %d microbatches; %s",
                data.scenario().source(), DeviceWords.of(data.scenario().cluster()).devices(data.summary().gpus()),
                data.scenario().cluster().name(), p.layout().mesh().tp(), p.layout().mesh().cp(),
                p.layout().mesh().pp(), p.layout().mesh().dp(), data.scenario().schedule().id(), data.scenario().microbatches(), generator);
    }

    /**
     * The four figures of a run, each under its own heading when {@code headings}; ids start with
     * {@code prefix}. The three over simulated time share one {@link TimeAxis}, 0 to the run's end.
     */
    public static List<Block> figures(RunData data, String prefix, boolean headings) {
        return figures(data, prefix, headings, new TimeAxis(data.run().timeline().makespan()));
    }

    /** As {@link #figures(RunData, String, boolean)} over {@code time} (runs shown side by side share one). */
    public static List<Block> figures(RunData data, String prefix, boolean headings, TimeAxis time) {
        List<Block> out = new ArrayList<>();
        if (headings) {
            out.add(new Block.Heading("Step time", 2));
        }
        out.add(new Block.Figure(StepBreakdown.chart(data, prefix)));
        if (headings) {
            out.add(new Block.Heading("Pipeline", 2));
        }
        out.add(new Block.Figure(PipelineOverview.chart(data, prefix, time)));
        if (headings) {
            out.add(new Block.Heading("Memory", 2));
        }
        out.add(new Block.Figure(MemoryOverTime.chart(data, prefix, time)));
        if (headings) {
            out.add(new Block.Heading("Links", 2));
        }
        out.add(new Block.Figure(LinkHeat.chart(data, prefix, time)));
        return out;
    }

    /** Headline figures as a two-column table. */
    public static Block.Table summary(RunData data, String prefix) {
        RunSummary r = data.summary();
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("step time", Axis.DURATION_NS.format(r.stepTimeNs())));
        rows.add(List.of("throughput", String.format(Locale.ROOT, "%,.0f tokens/s", r.tokensPerSecond())));
        DeviceWords words = DeviceWords.of(data.scenario().cluster());
        rows.add(List.of("model TFLOP/s per " + words.device(), String.format(Locale.ROOT, "%.1f", r.tflopsPerGpu())));
        rows.add(List.of("MFU / HFU", String.format(Locale.ROOT, "%.1f%% / %.1f%%", 100 * r.mfu(), 100 * r.hfu())));
        // the summary's idle split (docs/metrics.md, "Idle time"), means over GPUs
        rows.add(List.of("idle (mean over GPUs)", pct(r.idleFraction())));
        rows.add(List.of("pipeline bubble", pct(r.pipelineBubbleFraction())));
        rows.add(List.of("exposed communication", pct(r.exposedCommFraction())));
        rows.add(List.of("other waits", pct(r.otherWaitFraction())));
        rows.add(List.of("interference", pct(r.interferenceFraction())));
        RunSummary.Device worst = r.devices().stream()
                .max(java.util.Comparator.comparingLong(d -> d.memory().peakBytes())).orElseThrow();
        rows.add(List.of("peak memory", String.format(Locale.ROOT, "%s on %s (HBM %s)",
                Axis.GB.format(worst.memory().peakBytes()), worst.name(),
                Axis.GB.format(data.scenario().cluster().accelerator().hbmBytes()))));
        rows.add(List.of(words.devices(), String.format(Locale.ROOT, "%,d", r.gpus())));
        rows.add(List.of("tasks / events", String.format(Locale.ROOT, "%,d / %,d", r.tasks(), r.events())));
        if (r.steps() != null) {
            rows.add(List.of("steps", r.steps().size() + " simulated back to back; figures of the last"));
        }
        return new Block.Table(prefix + "summary-table", List.of("figure", "value"), List.of(false, true), rows);
    }

    /** Per parallel group kind: size, what it spans, and its traffic's exposed and overlapped time per GPU. */
    public static Block.Table groups(RunData data, String prefix) {
        Map<String, long[]> traffic = traffic(data.summary());
        int n = Math.max(1, data.summary().devices().size());
        List<List<String>> rows = new ArrayList<>();
        for (ParallelGroups.Group g : data.summary().groups()) {
            List<String> kinds = new ArrayList<>();
            long exposed = 0;
            long overlapped = 0;
            for (Map.Entry<String, long[]> e : traffic.entrySet()) {
                if (carries(g.kind(), e.getKey())) {
                    kinds.add(e.getKey());
                    exposed += e.getValue()[0];
                    overlapped += e.getValue()[1];
                }
            }
            List<String> ex = g.example();
            String members = ex.size() <= 4 ? String.join(", ", ex)
                    : String.join(", ", ex.subList(0, 3)) + ", ... " + ex.get(ex.size() - 1);
            rows.add(List.of(g.kind(), Integer.toString(g.size()), Integer.toString(g.servers()),
                    g.crosses().isEmpty() ? "-" : String.join(" + ", g.crosses()), members,
                    kinds.isEmpty() ? "-" : String.join(", ", kinds), Axis.DURATION_NS.format((double) exposed / n),
                    Axis.DURATION_NS.format((double) overlapped / n)));
        }
        DeviceWords words = DeviceWords.of(data.scenario().cluster());
        return new Block.Table(prefix + "groups-table", List.of("group", words.devices(), words.servers(), "crosses", "first group",
                "traffic", "exposed per GPU", "overlapped per GPU"), List.of(false, true, true, false, false, false,
                true, true), rows);
    }

    /** Per traffic kind: mean exposed and overlapped time per simulated GPU. */
    public static Block.Table traffic(RunData data, String prefix) {
        int n = Math.max(1, data.summary().devices().size());
        List<List<String>> rows = new ArrayList<>();
        traffic(data.summary()).forEach((k, v) -> rows.add(List.of(k, Axis.DURATION_NS.format((double) v[0] / n),
                Axis.DURATION_NS.format((double) v[1] / n))));
        return new Block.Table(prefix + "traffic-table", List.of("traffic kind", "exposed per GPU", "overlapped per GPU"),
                List.of(false, true, true), rows);
    }

    /**
     * Whether traffic of category {@code kind} runs over groups of {@code group}: whether a
     * traffic kind of that category runs over that kind of group (tp carries tp-comm, dp carries
     * dp-comm and ZeRO-3's fsdp-copy, ...).
     */
    static boolean carries(String group, String kind) {
        for (TaskTag.Traffic t : TaskTag.Traffic.values()) {
            if (kind.equals(t.category()) && group.equals(t.group())) {
                return true;
            }
        }
        return false;
    }

    private static Map<String, long[]> traffic(RunSummary r) {
        Map<String, long[]> out = new TreeMap<>();
        for (RunSummary.Device d : r.devices()) {
            d.exposedByKind().forEach((k, v) -> out.computeIfAbsent(k, x -> new long[2])[0] += v);
            d.overlappedByKind().forEach((k, v) -> out.computeIfAbsent(k, x -> new long[2])[1] += v);
        }
        return out;
    }

    private static String pct(double f) {
        return String.format(Locale.ROOT, "%.2f%%", 100 * f);
    }
}
