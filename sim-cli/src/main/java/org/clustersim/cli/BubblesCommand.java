package org.clustersim.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import org.clustersim.strategies.pipeline.AnalyticalBubble;
import org.clustersim.strategies.pipeline.PipelineSchedule;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.strategies.pipeline.ScheduleStudy;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code clustersim bubbles}: every schedule valid for the given p, m, v simulated side by
 * side, with the measured bubble of one step, the published closed form, their difference, the
 * steady-state bubble measured over consecutive steps, peak activations and weights per rank.
 */
@Command(name = "bubbles", mixinStandardHelpOptions = true,
        description = "Simulate every schedule valid for the given values and compare measured with analytical bubbles.")
public final class BubblesCommand implements Callable<Integer> {
    @Mixin
    ScheduleOptions options;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the rows as a JSON array.")
    Path json;

    @Spec
    CommandSpec spec;

    /**
     * One row of the table; times in the units of the options.
     *
     * @param kind                schedule name
     * @param p                   pipeline ranks
     * @param m                   microbatches
     * @param v                   chunks per rank
     * @param f                   F
     * @param bi                  Bi
     * @param w                   W
     * @param fb                  F&amp;B
     * @param measuredBubble      worst rank's compute idle time within the simulated step
     * @param analyticalBubble    the published closed form
     * @param difference          measured minus analytical
     * @param measuredSpanBubble  worst rank's idle time within its own active span
     * @param measuredSteadyBubble worst rank's idle time per step once consecutive steps overlap as
     *                            the schedule lets them: the last of {@link ScheduleStudy#STEADY_STEPS}
     *                            steps simulated back to back
     * @param steadyStepTime      that step's time (the period at which steps complete)
     * @param peakActivations     measured peak live activations (worst rank)
     * @param analyticalPeakActivations the published peak
     * @param weightsPerRank      model-copy shares of weights per rank
     */
    public record Row(String kind, int p, int m, int v, double f, double bi, double w, double fb,
                      double measuredBubble, double analyticalBubble, double difference, double measuredSpanBubble,
                      double measuredSteadyBubble, double steadyStepTime, double peakActivations, double analyticalPeakActivations, double weightsPerRank) {
    }

    @Override
    public Integer call() throws IOException {
        options.check();
        OutputFiles.check("--json", json);
        options.estimate("bubbles with p=" + options.p + " m=" + options.microbatches(),
                Math.max(2, options.v), ScheduleKind.values().length, null, false).requireFits();
        int p = options.p;
        int m = options.microbatches();
        List<Row> rows = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        for (ScheduleKind k : ScheduleKind.values()) {
            PipelineSchedule schedule;
            try {
                schedule = options.schedule(k);
                schedule.validate(p, m);
            } catch (IllegalArgumentException e) {
                skipped.add(k.id() + ": " + e.getMessage());
                continue;
            }
            ScheduleStudy.Result r = new ScheduleStudy(schedule, p, m, options.costs(schedule),
                    options.hopLatencyNs()).run();
            ScheduleStudy.Result steady = new ScheduleStudy(schedule, p, m, options.costs(schedule),
                    options.hopLatencyNs()).runSteadyState();
            int v = options.chunksFor(k);
            double measured = ScheduleOptions.units(r.maxIdle());
            double analytical = AnalyticalBubble.bubble(k, p, v, options.f, options.bi, options.w,
                    options.overlapped());
            rows.add(new Row(k.id(), p, m, v, options.f, options.bi, options.w, options.overlapped(), measured,
                    analytical, measured - analytical, ScheduleOptions.units(r.maxSpanIdle()),
                    ScheduleOptions.units(steady.maxSteadyIdle()), ScheduleOptions.units(steady.stepTime()),
                    r.peakActivations(),
                    AnalyticalBubble.peakActivations(k, p, m, v), schedule.weightCopies(p, m)));
        }
        PrintWriter out = spec.commandLine().getOut();
        out.printf(Locale.ROOT, "p=%d m=%d F=%s Bi=%s W=%s F&B=%s, %s%n%n", p, m, ScheduleCommand.num(options.f),
                ScheduleCommand.num(options.bi), ScheduleCommand.num(options.w),
                ScheduleCommand.num(options.overlapped()),
                options.latency > 0 ? "send latency " + ScheduleCommand.num(options.latency) : "free communication");
        out.printf(Locale.ROOT, "%-12s %3s %10s %10s %10s %10s %10s %10s %10s %8s%n", "schedule", "v", "measured",
                "analytical", "diff", "own-span", "steady", "peak acts", "(table)", "weights");
        for (Row row : rows) {
            out.printf(Locale.ROOT, "%-12s %3d %10s %10s %10s %10s %10s %10s %10s %7sx%n", row.kind(), row.v(),
                    ScheduleCommand.num(row.measuredBubble()), ScheduleCommand.num(row.analyticalBubble()),
                    ScheduleCommand.num(row.difference()), ScheduleCommand.num(row.measuredSpanBubble()),
                    ScheduleCommand.num(row.measuredSteadyBubble()),
                    ScheduleCommand.num(row.peakActivations()), ScheduleCommand.num(row.analyticalPeakActivations()),
                    ScheduleCommand.num(row.weightsPerRank()));
        }
        for (String s : skipped) {
            out.printf(Locale.ROOT, "skipped %s%n", s);
        }
        out.printf(Locale.ROOT, "%nmeasured: worst rank's compute idle time in one simulated step; own-span: idle "
                + "between a rank's first and last task;%nsteady: worst rank's idle per step with %d steps simulated "
                + "back to back (the last one measured), each overlapping%nthe next as far as the schedule lets it; "
                + "see docs/validation.md for where each closed form holds.%n", ScheduleStudy.STEADY_STEPS);
        if (json != null) {
            OutputFiles.writeJson(json, rows);
            out.printf(Locale.ROOT, "json %s%n", json);
        }
        out.flush();
        return 0;
    }
}
