package org.clustersim.cli.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.clustersim.cli.output.RunSummary;
import org.clustersim.study.whatif.Comparison;
import org.clustersim.study.whatif.Outcome;

/**
 * The reports of {@code clustersim whatif}: a baseline and its faulty variant side by side
 * (headline figures with the change, then each run's figures in two columns), or a sweep's
 * variants ranked by the slowdown they cause, above the baseline's own figures.
 */
public final class WhatIfPages {
    /** Most variants drawn in the ranking chart (the table lists them all). */
    static final int RANKED_BARS = 40;

    private WhatIfPages() {
    }

    /** Baseline against variant; {@code changes} are the links whose traffic changed most. */
    public static Report comparison(RunData base, RunData variant, String label, List<Comparison.LinkChange> changes,
                                    String generator) {
        List<Block> blocks = new ArrayList<>();
        blocks.add(new Block.Heading("Comparison", 2));
        blocks.add(new Block.Paragraph("Variant: " + label + "."));
        blocks.add(headline(base.summary(), variant.summary(), base.scenario().cluster().accelerator().hbmBytes()));
        if (!changes.isEmpty()) {
            List<List<String>> rows = new ArrayList<>();
            for (Comparison.LinkChange c : changes) {
                rows.add(List.of(c.link(), Axis.GB.format(c.baselineBytes()), Axis.GB.format(c.variantBytes()),
                        Axis.DURATION_NS.format(c.baselineBusyNs()), Axis.DURATION_NS.format(c.variantBusyNs())));
            }
            blocks.add(new Block.Heading("Links whose traffic changed most", 3));
            blocks.add(new Block.Table("link-changes-table", List.of("link", "baseline bytes", "variant bytes",
                    "baseline busy", "variant busy"), List.of(false, true, true, true, true), rows));
        }
        // side by side on one time axis: the longer run's end
        TimeAxis time = new TimeAxis(Math.max(base.run().timeline().makespan(), variant.run().timeline().makespan()));
        List<Block> left = new ArrayList<>(RunPage.figures(base, "baseline-", false, time));
        left.add(RunPage.groups(base, "baseline-"));
        List<Block> right = new ArrayList<>(RunPage.figures(variant, "variant-", false, time));
        right.add(RunPage.groups(variant, "variant-"));
        blocks.add(new Block.Columns(List.of("Baseline", "Variant"), List.of(left, right)));
        return new Report("clustersim whatif: " + base.scenario().name(), RunPage.subtitle(base, generator), blocks);
    }

    private static Block.Table headline(RunSummary b, RunSummary v, long hbm) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(row("step time", Axis.DURATION_NS.format(b.stepTimeNs()), Axis.DURATION_NS.format(v.stepTimeNs()),
                String.format(Locale.ROOT, "%+.2f%%", 100.0 * (v.stepTimeNs() - b.stepTimeNs()) / b.stepTimeNs())));
        rows.add(row("MFU", pct(b.mfu()), pct(v.mfu()), points(v.mfu() - b.mfu())));
        rows.add(row("idle", pct(b.idleFraction()), pct(v.idleFraction()),
                points(v.idleFraction() - b.idleFraction())));
        rows.add(row("pipeline bubble", pct(b.pipelineBubbleFraction()), pct(v.pipelineBubbleFraction()),
                points(v.pipelineBubbleFraction() - b.pipelineBubbleFraction())));
        rows.add(row("exposed communication", pct(b.exposedCommFraction()), pct(v.exposedCommFraction()),
                points(v.exposedCommFraction() - b.exposedCommFraction())));
        rows.add(row("other waits", pct(b.otherWaitFraction()), pct(v.otherWaitFraction()),
                points(v.otherWaitFraction() - b.otherWaitFraction())));
        rows.add(row("interference", pct(b.interferenceFraction()), pct(v.interferenceFraction()),
                points(v.interferenceFraction() - b.interferenceFraction())));
        rows.add(row("peak memory (HBM " + Axis.GB.format(hbm) + ")", Axis.GB.format(b.peakMemoryBytes()),
                Axis.GB.format(v.peakMemoryBytes()), Axis.GB.format(v.peakMemoryBytes() - b.peakMemoryBytes())));
        return new Block.Table("comparison-table", List.of("figure", "baseline", "variant", "change"),
                List.of(false, true, true, true), rows);
    }

    /**
     * A sweep: the ranking as a chart (top {@value #RANKED_BARS}) and a table (all), then the
     * baseline's figures.
     *
     * @param outcomes the variants, most harmful first
     */
    public static Report ranking(RunData base, Outcome baseline, List<Outcome> outcomes, String sweep,
                                 String generator) {
        List<Block> blocks = new ArrayList<>();
        blocks.add(new Block.Heading("Ranking", 2));
        long failed = outcomes.stream().filter(Outcome::failed).count();
        blocks.add(new Block.Paragraph(String.format(Locale.ROOT, "Sweep %s: %d variants against a baseline step of "
                + "%s%s.", sweep, outcomes.size(), Axis.DURATION_NS.format(baseline.stepTimeNs()), failed == 0 ? ""
                : "; " + failed + " cut a communication group apart and could not run (listed first in the table)")));
        List<RankedBars.Bar> bars = new ArrayList<>();
        for (Outcome o : outcomes) {
            if (!o.failed() && bars.size() < RANKED_BARS) {
                double slow = o.slowdown(baseline) - 1;
                bars.add(new RankedBars.Bar(o.label(), Math.max(0, slow), o.linkClass().isEmpty() ? Palette.cycle(0)
                        : Palette.part(o.linkClass()), String.format(Locale.ROOT, "%s: step %s (%+.2f%%)", o.label(),
                        Axis.DURATION_NS.format(o.stepTimeNs()), 100 * slow)));
            }
        }
        long ran = outcomes.size() - failed;
        blocks.add(new Block.Figure(new RankedBars("ranking", "Slowdown per variant",
                "Step time of each variant over the baseline's, most harmful first" + (ran > RANKED_BARS
                        ? " (the first " + RANKED_BARS + " of " + ran + "; the table lists all)" : "") + ".",
                bars, Axis.PERCENT)));
        List<List<String>> rows = new ArrayList<>();
        int rank = 1;
        for (Outcome o : outcomes) {
            rows.add(List.of(Integer.toString(rank++), o.label(), o.linkClass().isEmpty() ? "-" : o.linkClass(),
                    o.failed() ? "-" : Axis.DURATION_NS.format(o.stepTimeNs()),
                    o.failed() ? "cut apart" : String.format(Locale.ROOT, "%+.2f%%", 100 * (o.slowdown(baseline) - 1)),
                    o.failed() ? "-" : pct(o.mfu()), o.failed() ? "-" : pct(o.exposedCommFraction())));
        }
        blocks.add(new Block.Table("ranking-table", List.of("rank", "variant", "class", "step time", "slowdown", "MFU",
                "exposed comm"), List.of(true, false, false, true, true, true, true), rows));
        blocks.add(new Block.Heading("Baseline", 2));
        blocks.add(RunPage.summary(base, "baseline-"));
        blocks.addAll(RunPage.figures(base, "baseline-", false));
        return new Report("clustersim whatif sweep: " + base.scenario().name(), RunPage.subtitle(base, generator),
                blocks);
    }

    private static List<String> row(String a, String b, String c, String d) {
        return List.of(a, b, c, d);
    }

    private static String pct(double f) {
        return String.format(Locale.ROOT, "%.2f%%", 100 * f);
    }

    private static String points(double f) {
        return String.format(Locale.ROOT, "%+.2f points", 100 * f);
    }
}
