package org.clustersim.cli;

import org.clustersim.core.input.InputException;
import org.clustersim.strategies.pipeline.PipelineSchedule;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.strategies.pipeline.UniformCosts;

import picocli.CommandLine.Option;

/**
 * Options shared by {@code schedule} and {@code bubbles}: pipeline size, microbatches, chunks
 * and the stage times F, Bi, W (and DualPipe's F&amp;B) in the notation of the pipeline-bubble
 * literature: one rank's share of one model copy, for one microbatch, in any time unit.
 */
final class ScheduleOptions {
    /** Simulated nanoseconds per time unit of the options: fine enough for three decimals of F. */
    static final double NS_PER_UNIT = 1e6;
    /** Longest time a flag may give one task or send, in units (1e9 units: 1e15 ns of clock). */
    static final double MAX_TIME = 1e9;
    static final String MAX_TIME_TEXT = "1e9";
    /** Clock a schedule study may reach, ns: a long holds 9.2e18, and sums must not overflow on the way. */
    static final double MAX_CLOCK_NS = 1e18;

    @Option(names = "-p", paramLabel = "P", description = "Pipeline ranks (default: ${DEFAULT-VALUE}).",
            defaultValue = "4")
    int p;

    @Option(names = "-m", paramLabel = "M", description = "Microbatches per step (default: 2p).")
    Integer m;

    @Option(names = "-v", paramLabel = "V",
            description = "Model chunks per rank for interleaved (default: ${DEFAULT-VALUE}); ZB-V and DualPipeV use 2.",
            defaultValue = "2")
    int v;

    @Option(names = "--f", paramLabel = "F", description = "Forward time (default: ${DEFAULT-VALUE}).",
            defaultValue = "1")
    double f;

    @Option(names = "--bi", paramLabel = "BI", description = "Backward-input time (default: ${DEFAULT-VALUE}).",
            defaultValue = "1")
    double bi;

    @Option(names = "--w", paramLabel = "W", description = "Backward-weight time (default: ${DEFAULT-VALUE}).",
            defaultValue = "1")
    double w;

    @Option(names = "--fb", paramLabel = "FB",
            description = "Time of one overlapped DualPipe F&B pair (default: F + Bi + W).")
    Double fb;

    @Option(names = "--latency", paramLabel = "L",
            description = "Time one stage-to-stage send takes (default: ${DEFAULT-VALUE}, free communication).",
            defaultValue = "0")
    double latency;

    int microbatches() {
        return m != null ? m : 2 * p;
    }

    double overlapped() {
        return fb != null ? fb : f + bi + w;
    }

    /** Checks ranges; throws InputException (exit code 2) naming the option. */
    void check() {
        if (p < 1) {
            throw new InputException("-p must be at least 1, got " + p);
        }
        if (microbatches() < 1) {
            throw new InputException("-m must be at least 1, got " + microbatches());
        }
        if (v < 1) {
            throw new InputException("-v must be at least 1, got " + v);
        }
        for (double[] x : new double[][] {{f, 0}, {bi, 1}, {w, 2}, {latency, 3}}) {
            if (!(x[0] >= 0 && x[0] <= MAX_TIME)) {
                throw new InputException(new String[] {"--f", "--bi", "--w", "--latency"}[(int) x[1]]
                        + " must be a finite number from 0 to " + MAX_TIME_TEXT + ", got " + x[0]);
            }
        }
        if (!(f + bi + w > 0)) {
            throw new InputException("--f, --bi and --w must not all be 0");
        }
        if (fb != null && !(fb >= 0 && fb <= MAX_TIME)) {
            throw new InputException("--fb must be a finite number from 0 to " + MAX_TIME_TEXT + ", got " + fb);
        }
    }

    /**
     * The work of simulating {@code runs} schedules with {@code chunks} per rank (each once alone and
     * {@link org.clustersim.strategies.pipeline.ScheduleStudy#STEADY_STEPS} steps back to back), drawn
     * with one character per {@code unit} (null: half the shortest task; no drawing when {@code draw} is false).
     */
    WorkEstimate estimate(String what, int chunks, int runs, Double unit, boolean draw) {
        double perMicrobatch = Math.max(f + bi + w, fb == null ? 0 : fb) + 2 * latency;
        double makespan = ((double) microbatches() * chunks + 2.0 * p) * perMicrobatch;
        // the steady-state study runs several steps back to back on one nanosecond clock
        double clockNs = makespan * NS_PER_UNIT * (1 + org.clustersim.strategies.pipeline.ScheduleStudy.STEADY_STEPS);
        if (!(clockNs <= MAX_CLOCK_NS)) {
            throw new InputException(what + " would last about " + String.format(java.util.Locale.ROOT, "%.3g",
                    makespan) + " time units a step, beyond the simulation clock (" + String.format(
                    java.util.Locale.ROOT, "%.3g", MAX_CLOCK_NS / NS_PER_UNIT) + " units in all); use shorter times "
                    + "(--f, --bi, --w, --fb, --latency) or fewer microbatches (-m)");
        }
        double shortest = Double.MAX_VALUE;
        for (double x : new double[] {f, bi, w}) {
            if (x > 0) {
                shortest = Math.min(shortest, x);
            }
        }
        double unitNs = Math.max(1, unit != null ? ns(unit) : ns(shortest) / 2.0);
        double width = draw ? makespan * NS_PER_UNIT / unitNs : 0;
        return WorkEstimate.schedule(what, p, microbatches(), chunks,
                (long) runs * (1 + org.clustersim.strategies.pipeline.ScheduleStudy.STEADY_STEPS), width);
    }

    /** The chunk count to build {@code kind} with. */
    int chunksFor(ScheduleKind kind) {
        return kind.takesChunks() ? v : kind.fixedChunks();
    }

    PipelineSchedule schedule(ScheduleKind kind) {
        return kind.schedule(chunksFor(kind));
    }

    UniformCosts costs(PipelineSchedule schedule) {
        return UniformCosts.of(ns(f), ns(bi), ns(w), schedule, p, microbatches()).withOverlapped(ns(overlapped()));
    }

    /** Per-hop latency: a send crosses two hops (GPU to NVSwitch to GPU). */
    long hopLatencyNs() {
        return Math.round(latency * NS_PER_UNIT / 2);
    }

    static long ns(double units) {
        return Math.round(units * NS_PER_UNIT);
    }

    static double units(double ns) {
        return ns / NS_PER_UNIT;
    }
}
