package org.clustersim.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import org.clustersim.core.input.InputException;
import org.clustersim.core.trace.ChromeTraceWriter;
import org.clustersim.strategies.pipeline.AnalyticalBubble;
import org.clustersim.strategies.pipeline.AsciiTimeline;
import org.clustersim.strategies.pipeline.PipelineSchedule;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.strategies.pipeline.ScheduleStudy;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code clustersim schedule}: simulates one bare pipeline schedule on uniform stages and
 * draws every rank's compute timeline as text, with each rank's measured bubble next to the
 * published closed form, and the bubble that remains per step once consecutive steps overlap
 * (several steps simulated back to back).
 */
@Command(name = "schedule", mixinStandardHelpOptions = true,
        description = {"Simulate a bare pipeline schedule (uniform stages, free communication unless --latency)",
            "and draw each rank's timeline: F forward, B backward (input part when W is split),",
            "W weight gradient, X overlapped F&B, digits the microbatch, dots idle time."})
public final class ScheduleCommand implements Callable<Integer> {
    @Option(names = "--kind", required = true, paramLabel = "KIND",
            description = "gpipe, 1f1b, interleaved, zb-h1, zb-h2, zb-v, dualpipe or dualpipev.")
    String kind;

    @Mixin
    ScheduleOptions options;

    @Option(names = "--unit", paramLabel = "U",
            description = "Time one character stands for (default: half the shortest task).")
    Double unit;

    @Option(names = "--trace", paramLabel = "FILE", description = "Also write the trace (.json: Chrome JSON; .pftrace: Perfetto protobuf).")
    Path trace;

    @picocli.CommandLine.Mixin
    TraceFormatOption traceFormat = new TraceFormatOption();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        options.check();
        OutputFiles.check("--trace", trace);
        org.clustersim.core.trace.TraceFormat format = trace == null ? traceFormat.format()
                : traceFormat.formatOf("--trace", trace);
        ScheduleKind k = ScheduleKind.byId(kind).orElseThrow(() -> new InputException("--kind: unknown schedule '"
                + kind + "'; expected one of " + ScheduleKind.names()));
        if (unit != null && !(unit > 0 && Double.isFinite(unit))) {
            throw new InputException("--unit must be a finite number > 0, got " + unit);
        }
        options.estimate("schedule " + k.id() + " with p=" + options.p + " m=" + options.microbatches(),
                options.chunksFor(k), 1, unit, true).requireFits();
        PipelineSchedule schedule;
        try {
            schedule = options.schedule(k);
            schedule.validate(options.p, options.microbatches());
        } catch (IllegalArgumentException e) {
            throw new InputException(e.getMessage());
        }
        int p = options.p;
        int m = options.microbatches();
        ScheduleStudy.Result r = new ScheduleStudy(schedule, p, m, options.costs(schedule), options.hopLatencyNs())
                .run();
        ScheduleStudy.Result steady = new ScheduleStudy(schedule, p, m, options.costs(schedule),
                options.hopLatencyNs()).runSteadyState();
        if (unit != null && !(unit > 0)) {
            throw new InputException("--unit must be > 0, got " + unit);
        }
        long unitNs = unit != null ? Math.max(1, ScheduleOptions.ns(unit)) : AsciiTimeline.defaultUnit(r.timeline());
        double analytical = AnalyticalBubble.bubble(k, p, options.chunksFor(k), options.f, options.bi, options.w,
                options.overlapped());

        PrintWriter out = spec.commandLine().getOut();
        out.printf(Locale.ROOT, "%s  p=%d m=%d%s  F=%s Bi=%s W=%s%s  %s%n", k.id(), p, m,
                k.takesChunks() ? " v=" + options.v : "", num(options.f), num(options.bi), num(options.w),
                k == ScheduleKind.DUALPIPE || k == ScheduleKind.DUALPIPE_V ? " F&B=" + num(options.overlapped()) : "",
                options.latency > 0 ? "send latency " + num(options.latency) : "free communication");
        out.printf(Locale.ROOT, "one character = %s time units%n%n", num(ScheduleOptions.units(unitNs)));
        String[] lines = AsciiTimeline.render(r.timeline(), unitNs);
        int width = String.valueOf(p - 1).length();
        for (int rank = 0; rank < p; rank++) {
            out.printf(Locale.ROOT, "rank %" + width + "d |%s|  bubble %s  own-span %s  steady %s  peak acts %s%n",
                    rank, lines[rank], num(ScheduleOptions.units(r.idle(rank))),
                    num(ScheduleOptions.units(r.spanIdle(rank))), num(ScheduleOptions.units(steady.steadyIdle(rank))),
                    num(r.peakActivations(rank)));
        }
        out.println();
        out.printf(Locale.ROOT, "makespan %s; bubble (worst rank) %s measured, %s analytical (difference %s)%n",
                num(ScheduleOptions.units(r.makespan())), num(ScheduleOptions.units(r.maxIdle())), num(analytical),
                num(ScheduleOptions.units(r.maxIdle()) - analytical));
        out.printf(Locale.ROOT, "worst own-span idle %s (the bubble when consecutive steps may overlap); "
                + "peak activations %s measured, %s analytical; weights per rank %sx%n",
                num(ScheduleOptions.units(r.maxSpanIdle())), num(r.peakActivations()),
                num(AnalyticalBubble.peakActivations(k, p, m, options.chunksFor(k))),
                num(schedule.weightCopies(p, m)));
        out.printf(Locale.ROOT, "steady state (%d steps back to back, the last measured): step time %s, idle (worst "
                + "rank) %s%n", ScheduleStudy.STEADY_STEPS, num(ScheduleOptions.units(steady.stepTime())),
                num(ScheduleOptions.units(steady.maxSteadyIdle())));
        if (trace != null) {
            OutputFiles.write(Map.of(trace, o -> format.write(r.timeline(), o, Map.of("schedule",
                    k.id()), java.util.List.of())));
            out.printf(Locale.ROOT, "trace %s  (%s)%n", trace, format.viewers());
        }
        out.flush();
        return 0;
    }

    /** A number with up to three decimals and no trailing zeros. */
    static String num(double x) {
        String s = String.format(Locale.ROOT, "%.3f", x);
        s = s.contains(".") ? s.replaceAll("0+$", "").replaceAll("\\.$", "") : s;
        return s.equals("-0") ? "0" : s;
    }
}
