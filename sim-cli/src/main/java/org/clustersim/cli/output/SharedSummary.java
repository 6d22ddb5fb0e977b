package org.clustersim.cli.output;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.clustersim.study.StepFigures;
import org.clustersim.study.scenario.Placement;
import org.clustersim.study.shared.SharedRun;

/**
 * The summary of a shared cluster's run (JSON, CSV, text): per job its servers, the step measured
 * together and alone on the same servers, the slowdown, MFU and exposed communication of both, and
 * the cluster's aggregate throughput.
 *
 * @param name            the shared-cluster file's name
 * @param cluster         the cluster, described
 * @param tokensPerSecond every job's tokens per second, summed
 * @param jobs            per job, in file order
 */
public record SharedSummary(String name, String cluster, double tokensPerSecond, List<Job> jobs) {

    /**
     * One job.
     *
     * @param name                 its name
     * @param placement            as the file asks
     * @param servers              the servers it got, as ranges
     * @param gpus                 GPUs
     * @param measuredStep         the step measured (from 0): its last that ended while every job still ran
     * @param overlapped           whether that step ended while every other job still ran
     * @param stepTimeNs           that step's time together
     * @param aloneStepTimeNs      the same step alone on the same servers
     * @param slowdown             together over alone
     * @param mfu                  MFU together
     * @param aloneMfu             MFU alone
     * @param exposedCommFraction  exposed communication together, of the step time
     * @param aloneExposedCommFraction the same alone
     * @param exposedByKindNs      exposed communication together per traffic kind, mean over GPUs
     * @param pipelineBubbleFraction pipeline bubble together, of the step time (docs/metrics.md)
     * @param tokensPerSecond      tokens per second together
     * @param steps                every step's span together
     */
    public record Job(String name, String placement, String servers, int gpus, int measuredStep, boolean overlapped,
                      long stepTimeNs, long aloneStepTimeNs, double slowdown, double mfu, double aloneMfu,
                      double exposedCommFraction, double aloneExposedCommFraction, Map<String, Long> exposedByKindNs,
                      double pipelineBubbleFraction, double tokensPerSecond, List<StepFigures.StepSpan> steps) {
    }

    /** The summary of {@code run}. */
    public static SharedSummary of(SharedRun run) {
        List<Job> jobs = new ArrayList<>();
        for (SharedRun.JobRun j : run.jobs()) {
            StepFigures f = j.figures();
            StepFigures a = j.alone();
            jobs.add(new Job(j.job().name(), j.job().placement().describe(), Placement.ranges(j.job().servers()),
                    f.gpus(), j.measuredStep(), j.overlapped(), f.stepTimeNs(), a.stepTimeNs(), j.slowdown(), f.mfu(),
                    a.mfu(), f.exposedCommFraction(), a.exposedCommFraction(), f.exposedByKindNs(), f.pipelineBubbleFraction(),
                    f.tokensPerSecond(), f.steps()));
        }
        return new SharedSummary(run.shared().name(), run.shared().cluster().describe(), run.tokensPerSecond(),
                List.copyOf(jobs));
    }

    /** One row per job. */
    public void writeCsv(OutputStream out) throws IOException {
        Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
        w.write("job,placement,servers,gpus,measuredStep,overlapped,stepTimeNs,aloneStepTimeNs,slowdown,mfu,aloneMfu,"
                + "exposedCommFraction,aloneExposedCommFraction,pipelineBubbleFraction,tokensPerSecond\n");
        for (Job j : jobs) {
            w.write(String.format(Locale.ROOT, "%s,%s,\"%s\",%d,%d,%b,%d,%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.3f%n",
                    j.name(), j.placement(), j.servers(), j.gpus(), j.measuredStep(), j.overlapped(), j.stepTimeNs(),
                    j.aloneStepTimeNs(), j.slowdown(), j.mfu(), j.aloneMfu(), j.exposedCommFraction(),
                    j.aloneExposedCommFraction(), j.pipelineBubbleFraction(), j.tokensPerSecond()));
        }
        w.flush();
    }

    /** The text summary, naming the accelerators and machines in {@code words} (GPUs on servers, chips on hosts). */
    public void print(PrintWriter out, DeviceWords words) {
        out.printf(Locale.ROOT, "cluster    %s%n", cluster);
        for (Job j : jobs) {
            out.printf(Locale.ROOT, "job        %s: %,d %s on %s %s (%s)%n", j.name(), j.gpus(),
                    j.gpus() == 1 ? words.device() : words.devices(), words.servers(), j.servers(), j.placement());
            out.printf(Locale.ROOT, "  step     %s together, %s alone on the same %s: slowdown %.4fx (step %d%s)%n",
                    seconds(j.stepTimeNs()), seconds(j.aloneStepTimeNs()), words.servers(), j.slowdown(),
                    j.measuredStep(),
                    j.overlapped() ? "" : "; it ended after another job had finished: raise the others' "
                            + "simulation.steps, or give simulation: {steps: auto} at the top");
            out.printf(Locale.ROOT, "  MFU      %.1f%% (%.1f%% alone); exposed communication %.2f%% of the step "
                    + "(%.2f%% alone); %,.0f tokens/s%n", 100 * j.mfu(), 100 * j.aloneMfu(),
                    100 * j.exposedCommFraction(), 100 * j.aloneExposedCommFraction(), j.tokensPerSecond());
        }
        out.printf(Locale.ROOT, "aggregate  %,.0f tokens/s over %d job%s%n", tokensPerSecond, jobs.size(),
                jobs.size() == 1 ? "" : "s");
    }

    static String seconds(long ns) {
        return String.format(Locale.ROOT, ns >= 1_000_000_000L ? "%.4f s" : "%.3f ms",
                ns >= 1_000_000_000L ? ns / 1e9 : ns / 1e6);
    }
}
