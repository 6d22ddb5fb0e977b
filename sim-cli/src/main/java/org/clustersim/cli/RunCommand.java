package org.clustersim.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;


import org.clustersim.cli.output.AtomicOutput;
import org.clustersim.cli.output.MemoryTracks;
import org.clustersim.cli.output.RunSummary;
import org.clustersim.cli.output.StepRun;
import org.clustersim.cli.output.SummaryText;
import org.clustersim.cli.report.RunData;
import org.clustersim.cli.report.RunPage;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.input.InputException;
import org.clustersim.core.trace.ChromeTraceWriter;
import org.clustersim.core.trace.TraceFormat;
import org.clustersim.strategies.training.TrainingStep;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code clustersim run SCENARIO}: simulates one training step (or {@code simulation.steps} back
 * to back, reporting the last), prints a summary and writes the Chrome trace (and, on request, a
 * JSON summary). Outputs appear only when complete.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Simulate one training step of a scenario (or simulation.steps back to back, reporting the last); "
                + "print the summary and write the trace. A shared-cluster file (a jobs list) runs every job together "
                + "on one fabric and each alone on its servers, and prints each job's slowdown.")
public final class RunCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "SCENARIO", description = "Scenario file (.yaml, .yml or .json); one with a "
            + "workload section runs an imported Chakra trace (docs/workloads.md).")
    Path scenarioFile;

    @Option(names = "--trace", paramLabel = "FILE",
            description = "Trace output (default: output.trace of the scenario, else traces/<name>.json, or .pftrace "
                    + "with --trace-format perfetto); a .pftrace or .perfetto-trace name writes Perfetto's protobuf.")
    Path trace;

    @CommandLine.Mixin
    TraceFormatOption traceFormat = new TraceFormatOption();

    @Option(names = "--no-trace", description = "Write no Chrome trace (large runs: the trace of a 16K-GPU step is gigabytes).")
    boolean noTrace;

    @Option(names = "--allow-oom", description = "Report, but do not fail on, GPUs whose peak memory exceeds HBM.")
    boolean allowOom;

    @Option(names = "--csv", paramLabel = "FILE.csv", description = "Also write one row per GPU as CSV.")
    Path csv;

    @Option(names = "--summary", paramLabel = "FILE.json",
            description = "Also write the summary as JSON (default: output.summary of the scenario, if any).")
    Path summary;

    @Option(names = "--et-out", paramLabel = "DIR", description = "Also write the simulated step's task graph as "
            + "Chakra execution traces, one per rank: DIR/<name>.<rank>.et, and its process groups as DIR/<name>.json "
            + "(docs/workloads.md).")
    Path etOut;

    @CommandLine.Mixin
    ReportOptions reportOptions = new ReportOptions();

    @Spec
    CommandSpec spec;

    /**
     * A simulated scenario: its step, the run and what was measured (memory tracks added).
     *
     * @param wallSeconds time spent building and simulating
     */
    record Simulated(TrainingStep step, Simulation.Result run, RunSummary summary, double wallSeconds) {
    }

    /**
     * Builds and simulates the scenario's step and measures it; stops with an input error when the
     * layout does not fit in HBM unless {@code allowOom}. {@code linkCounters} records each link's
     * throughput over time (the report's heat map) even where the scenario does not ask for it, and
     * each GPU's memory over time.
     */
    static Simulated simulate(Scenario scenario, boolean allowOom, boolean linkCounters) {
        return simulate(scenario, allowOom, linkCounters, false);
    }

    /**
     * As {@link #simulate(Scenario, boolean, boolean)}, refusing up front work that cannot fit in
     * the heap ({@link WorkEstimate}; {@code withTrace} counts the trace's size too). Each GPU's
     * memory over time is a counter track for the trace and the report only: it is recorded when
     * one of them is wanted ({@code withTrace}, {@code linkCounters}), not for a summary alone
     * (its cost on the largest steps: docs/benchmarks.md, "Scale", ninth round).
     */
    static Simulated simulate(Scenario scenario, boolean allowOom, boolean linkCounters, boolean withTrace) {
        long t0 = System.nanoTime();
        TrainingStep step = WorkEstimate.step(scenario);
        WorkEstimate.of(scenario, step, withTrace).requireFits();
        StepRun simulated = StepRun.of(scenario, step, linkCounters);
        TrainingStep.Built built = simulated.built();
        Simulation.Result run = simulated.result();
        Timeline timeline = run.timeline();
        RunSummary result = simulated.summary();
        long hbm = scenario.cluster().accelerator().hbmBytes();
        RunSummary.Device worst = simulated.fullest();
        HbmPeak peak = HbmPeak.measured(worst.name(), worst.memory());
        if (peak.over(hbm) && !allowOom && !scenario.allowOom()) {
            throw peak.outOfMemory(scenario.name(), hbm, "", "pass --allow-oom to simulate anyway");
        }
        if (withTrace || linkCounters) {
            MemoryTracks.add(timeline, step, built);
        }
        return new Simulated(step, run, result, (System.nanoTime() - t0) / 1e9);
    }

    @Override
    public Integer call() throws IOException {
        // parsed once: which kind of file it is, then the scenario it holds
        org.clustersim.core.input.SourceNode tree = new org.clustersim.core.input.SourceTreeReader().read(scenarioFile);
        if (org.clustersim.study.scenario.WorkloadScenarioReader.isWorkload(tree)) {
            return ImportedRun.run(this, spec.commandLine().getOut());
        }
        if (org.clustersim.study.scenario.SharedScenarioReader.isShared(tree)) {
            if (etOut != null) {
                throw new InputException("--et-out: not supported for a shared-cluster file (" + scenarioFile
                        + " runs several jobs); expected a scenario with one model");
            }
            return SharedClusterRun.call(this, scenarioFile, tree);
        }
        Scenario scenario = new ScenarioReader().read(scenarioFile, tree);
        if (noTrace && trace != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "give --trace FILE or --no-trace, not both");
        }
        Path tracePath = noTrace ? null : trace != null ? trace : traceFormat.path(scenario.output().trace()
                .map(Path::of).orElse(Path.of("traces", scenario.name() + ".json")));
        // the file name and the format agree (the extension chooses, or a contradiction is refused) before any work
        TraceFormat format = tracePath == null ? traceFormat.format()
                : traceFormat.formatOf(trace != null ? "--trace" : "output.trace", tracePath);
        Path summaryPath = summary != null ? summary : scenario.output().summary().map(Path::of).orElse(null);
        // every output is checked before the (possibly long) simulation, so a bad path costs nothing
        Map<String, Path> targets = new LinkedHashMap<>();
        targets.put(trace != null ? "--trace" : "output.trace", tracePath);
        targets.put(summary != null ? "--summary" : "output.summary", summaryPath);
        targets.put("--csv", csv);
        targets.put("--report", reportOptions.report);
        OutputFiles.check(targets);
        EtOutput.check(etOut, scenario);

        Simulated sim = simulate(scenario, allowOom, reportOptions.wanted(), tracePath != null);
        Timeline timeline = sim.run().timeline();
        RunSummary result = sim.summary();
        double wall = sim.wallSeconds();

        Map<String, String> otherData = new LinkedHashMap<>();
        otherData.put("scenario", scenario.name());
        otherData.put("generator", "clustersim " + Version.current());
        Map<Path, AtomicOutput.Content> files = new LinkedHashMap<>();
        if (tracePath != null) {
            List<ChromeTraceWriter.Marker> markers = new ArrayList<>();
            scenario.faults().forEach(f -> markers.addAll(f.markers()));
            files.put(tracePath, out -> format.write(timeline, out, otherData, markers));
        }
        if (summaryPath != null) {
            files.put(summaryPath, OutputFiles.json(result));
        }
        if (csv != null) {
            files.put(csv, out -> org.clustersim.cli.output.DeviceCsv.write(result, out));
        }
        org.clustersim.study.workload.EtTraceWriter et = etOut == null ? null
                : EtOutput.stage(files, etOut, scenario, timeline.graph());
        reportOptions.stage(files, () -> RunPage.report(RunData.of(scenario, sim.step(), sim.run(), result),
                "clustersim " + Version.current()), scenario, timeline);
        OutputFiles.write(files);
        PrintWriter err = spec.commandLine().getErr();
        for (String w : org.clustersim.study.scenario.Fault.lateWarnings(scenario.faults(), timeline.makespan())) {
            err.println("warning: " + w);
        }
        err.flush();
        PrintWriter out = spec.commandLine().getOut();
        SummaryText.print(out, scenario, result, tracePath, format, summaryPath, wall);
        printReport(out, reportOptions);
        if (et != null) {
            var n = et.counts();
            out.printf(java.util.Locale.ROOT, "chakra ET  %s (%d ranks; %d compute nodes, %d collectives, %d "
                    + "transfers%s)%n", EtOutput.file(etOut, scenario, 0).resolveSibling(scenario.name() + ".*.et"),
                    et.ranks(), n.computes(), n.collectives(), n.transfers(),
                    (n.undescribed() > 0 ? "; " + n.undescribed() + " communications with no collective written as "
                            + "their flows' sends" : "")
                    + (n.crossDeviceDeps() > 0 ? "; " + n.crossDeviceDeps() + " dependencies across ranks left out"
                            : ""));
            out.flush();
        }
        return 0;
    }

    /** Says where the report and plots went, if anywhere. */
    static void printReport(PrintWriter out, ReportOptions options) {
        if (options.report != null) {
            out.printf("report     %s%n", options.report);
        }
        if (options.plots != null) {
            out.printf("plots      %s (one .svg and one .png per chart)%n", options.plots);
        }
        out.flush();
    }
}
