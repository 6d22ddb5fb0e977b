package org.clustersim.cli.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.clustersim.cli.output.RunSummary;
import org.clustersim.cli.output.SharedSummary;
import org.clustersim.study.SimulatedStep;
import org.clustersim.study.shared.SharedRun;

/**
 * The report of a shared cluster's run: the jobs side by side (servers, step together and alone,
 * slowdown, MFU, throughput), then a section per job with its headline figures, where its ranks'
 * step time goes and its pipeline, measured from its part of the shared timeline, and the
 * busiest links of the fabric over every job's traffic, each marked with the job that crossed it
 * or as shared.
 */
public final class SharedPage {
    private SharedPage() {
    }

    /** The page. */
    public static Report report(SharedRun run, SharedSummary summary, String generator) {
        List<Block> blocks = new ArrayList<>();
        blocks.add(new Block.Heading("Jobs", 2));
        List<List<String>> rows = new ArrayList<>();
        for (SharedSummary.Job j : summary.jobs()) {
            rows.add(List.of(j.name(), String.format(Locale.ROOT, "%,d", j.gpus()), j.servers(), j.placement(),
                    Axis.DURATION_NS.format(j.stepTimeNs()), Axis.DURATION_NS.format(j.aloneStepTimeNs()),
                    String.format(Locale.ROOT, "%.4fx", j.slowdown()), String.format(Locale.ROOT, "%.1f%%", 100 * j.mfu()),
                    String.format(Locale.ROOT, "%,.0f", j.tokensPerSecond())));
        }
        blocks.add(new Block.Table("jobs", List.of("job", "GPUs", "servers", "placement", "step together",
                "step alone", "slowdown", "MFU", "tokens/s"), List.of(false, true, false, false, true, true, true, true,
                true), rows));
        blocks.add(new Block.Paragraph(String.format(Locale.ROOT, "Aggregate throughput %,.0f tokens/s. Each job is "
                + "measured at its last step that ended while every job still ran, and alone on the same servers "
                + "at the same step.", summary.tokensPerSecond())));
        RunData first = null;
        List<LinkHeat.JobLinks> jobLinks = new ArrayList<>();
        for (int i = 0; i < run.jobs().size(); i++) {
            SharedRun.JobRun j = run.jobs().get(i);
            var scenario = j.job().scenario();
            RunSummary rs = RunSummary.of(scenario, new SimulatedStep(j.step(), j.built(), j.together(), j.figures()));
            RunData data = RunData.of(scenario, j.step(), j.together(), rs);
            first = first == null ? data : first;
            jobLinks.add(new LinkHeat.JobLinks(j.job().name(), j.aloneLinks()));
            String prefix = "job" + i + "-";
            blocks.add(new Block.Heading("Job " + j.job().name(), 2));
            blocks.add(RunPage.summary(data, prefix));
            blocks.add(new Block.Figure(StepBreakdown.chart(data, prefix)));
            blocks.add(new Block.Figure(PipelineOverview.chart(data, prefix)));
        }
        blocks.add(new Block.Heading("Links (every job's traffic, coloured by job)", 2));
        blocks.add(new Block.Figure(LinkHeat.chart(first, "shared-", jobLinks)));
        return new Report("clustersim report: " + summary.name(), summary.cluster() + "; " + generator, blocks);
    }
}
