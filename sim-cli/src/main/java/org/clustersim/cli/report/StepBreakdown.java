package org.clustersim.cli.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.clustersim.cli.output.RunSummary;

/**
 * Where each pipeline rank's step time goes, from the measured per-GPU figures of {@link
 * RunSummary}: compute (busy minus what interference cost), interference, and the idle time in
 * the three parts docs/metrics.md defines (the summary's): exposed communication by traffic
 * kind, pipeline bubble and other waits. The parts of a bar add up to the rank's step window.
 */
public final class StepBreakdown {
    /** Most ranks drawn; larger pipelines are sampled evenly. */
    static final int MAX_RANKS = 64;

    private StepBreakdown() {
    }

    public static StackedBars chart(RunData data, String idPrefix) {
        Map<Integer, RunSummary.Device> byDevice = new java.util.HashMap<>();
        data.summary().devices().forEach(d -> byDevice.put(d.device(), d));
        TreeMap<String, Boolean> kinds = new TreeMap<>();
        data.summary().devices().forEach(d -> d.exposedByKind().forEach((k, v) -> kinds.put(k, true)));
        List<StackedBars.Row> rows = new ArrayList<>();
        for (int p : data.shownRanks(MAX_RANKS)) {
            RunSummary.Device d = byDevice.get(data.rankDevice(p));
            if (d == null) {
                continue;
            }
            long step = d.computeBusyNs() + d.computeIdleNs();
            List<StackedBars.Segment> segs = new ArrayList<>();
            long compute = d.computeBusyNs() - d.interferenceNs();
            segs.add(new StackedBars.Segment(compute, Palette.part("compute"), tip("compute", compute, step)));
            segs.add(new StackedBars.Segment(d.interferenceNs(), Palette.part("interference"),
                    tip("interference (compute slowed by communication kernels)", d.interferenceNs(), step)));
            for (String k : kinds.keySet()) {
                long own = d.exposedByKind().getOrDefault(k, 0L);
                segs.add(new StackedBars.Segment(own, Palette.part(k), tip("exposed " + k, own, step)));
            }
            segs.add(new StackedBars.Segment(d.pipelineBubbleNs(), Palette.part("bubble"),
                    tip("pipeline bubble (waiting on another stage)", d.pipelineBubbleNs(), step)));
            segs.add(new StackedBars.Segment(d.otherWaitNs(), Palette.part("other waits"),
                    tip("other waits", d.otherWaitNs(), step)));
            rows.add(new StackedBars.Row("rank " + p + " " + d.name(), segs));
        }
        List<Legend> legend = new ArrayList<>();
        legend.add(new Legend("compute", Palette.part("compute")));
        legend.add(new Legend("interference", Palette.part("interference")));
        kinds.keySet().forEach(k -> legend.add(new Legend("exposed " + k, Palette.part(k))));
        legend.add(new Legend("pipeline bubble", Palette.part("bubble")));
        legend.add(new Legend("other waits", Palette.part("other waits")));
        int pp = data.step().pp();
        return new StackedBars(idPrefix + "step-breakdown", "Step time per pipeline rank",
                "Each bar is one pipeline rank's step window (TP rank 0 of replica 0), measured on the simulated "
                        + "timeline" + (pp > MAX_RANKS ? "; " + MAX_RANKS + " of " + pp + " ranks, evenly spaced" : "")
                        + ". Idle time is split by what the GPU waited for (docs/metrics.md): exposed "
                        + "communication (a transfer of that kind), pipeline bubble (another stage's computation) and "
                        + "other waits.", rows, legend, Axis.DURATION_NS);
    }

    private static String tip(String what, double ns, long step) {
        return String.format(java.util.Locale.ROOT, "%s: %s (%.1f%% of the step)", what, Axis.DURATION_NS.format(ns),
                step == 0 ? 0 : 100 * ns / step);
    }
}
