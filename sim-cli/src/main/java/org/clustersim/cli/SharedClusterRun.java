package org.clustersim.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.clustersim.cli.output.AtomicOutput;
import org.clustersim.cli.output.SharedSummary;
import org.clustersim.cli.output.SharedTrace;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.input.InputException;
import org.clustersim.core.input.SourceNode;
import org.clustersim.core.trace.ChromeTraceWriter;
import org.clustersim.core.trace.TraceFormat;
import org.clustersim.study.scenario.Fault;
import org.clustersim.study.scenario.SharedScenario;
import org.clustersim.study.scenario.SharedScenarioReader;
import org.clustersim.study.shared.SharedRun;

import picocli.CommandLine;

/**
 * {@code clustersim run SHARED.yaml} for a shared-cluster file (one with a {@code jobs} list):
 * every job simulated together and alone on its servers ({@link SharedRun}); the per-job summary
 * printed, the trace written with a process per job, {@code --summary} and {@code --csv} with a
 * record / row per job. Outputs are checked before and written all-or-nothing after the runs.
 */
final class SharedClusterRun {
    private SharedClusterRun() {
    }

    /**
     * {@code validate SHARED.yaml}: reads the file, places the jobs, resolves the faults on the
     * cluster, prints each job's servers and refuses work that cannot fit the heap.
     */
    static int validate(PrintWriter out, Path file, SourceNode tree) {
        SharedScenario shared = new SharedScenarioReader().read(file, tree);
        var faults = shared.faultEvents(shared.topology());
        org.clustersim.cli.output.DeviceWords words = org.clustersim.cli.output.DeviceWords.of(shared.cluster());
        out.printf("%s: ok (shared cluster of %s, %d jobs%s)%n", file, words.devices(shared.cluster().gpus()),
                shared.jobs().size(), shared.faults().isEmpty() ? "" : ", " + shared.faults().size() + " fault"
                        + (shared.faults().size() == 1 ? "" : "s") + " touching " + faults.links().stream()
                        .map(e -> e.linkId()).distinct().count() + " links");
        for (SharedScenario.Job j : shared.jobs()) {
            out.printf("job %s: %s, %s, on %s %s (%s)%n", j.name(), j.scenario().model().name(),
                    words.devices(j.scenario().parallelism().gpus()), words.servers(),
                    org.clustersim.study.scenario.Placement.ranges(j.servers()),
                    j.placement().describe());
        }
        out.flush();
        for (SharedScenario.Job j : shared.jobs()) {
            WorkEstimate.of(j.scenario(), j.scenario().trainingStep(), false).requireFits();
        }
        return 0;
    }

    static int call(RunCommand cmd, Path file, SourceNode tree) {
        SharedScenario shared = new SharedScenarioReader().read(file, tree);
        if (cmd.noTrace && cmd.trace != null) {
            throw new CommandLine.ParameterException(cmd.spec.commandLine(), "give --trace FILE or --no-trace, not both");
        }
        Path tracePath = cmd.noTrace ? null : cmd.trace != null ? cmd.trace : cmd.traceFormat.path(shared.output()
                .trace().map(Path::of).orElse(Path.of("traces", shared.name() + ".json")));
        TraceFormat format = cmd.traceFormat.format();
        Path summaryPath = cmd.summary != null ? cmd.summary : shared.output().summary().map(Path::of).orElse(null);
        Map<String, Path> targets = new LinkedHashMap<>();
        targets.put(cmd.trace != null ? "--trace" : "output.trace", tracePath);
        targets.put(cmd.summary != null ? "--summary" : "output.summary", summaryPath);
        targets.put("--csv", cmd.csv);
        targets.put("--report", cmd.reportOptions.report);
        OutputFiles.check(targets);
        for (SharedScenario.Job j : shared.jobs()) {
            WorkEstimate.of(j.scenario(), j.scenario().trainingStep(), tracePath != null).requireFits();
        }
        long t0 = System.nanoTime();
        SharedRun run = SharedRun.of(shared, cmd.reportOptions.wanted(), Runtime.getRuntime().availableProcessors());
        double wall = (System.nanoTime() - t0) / 1e9;
        for (SharedRun.JobRun j : run.jobs()) {
            long hbm = j.job().scenario().cluster().accelerator().hbmBytes();
            long peak = j.figures().peakMemoryBytes();
            if (peak > hbm && !cmd.allowOom && !j.job().scenario().allowOom()) {
                throw new InputException(String.format(java.util.Locale.ROOT, "job %s runs out of memory: peak %.1f GB "
                        + "against %.0f GB of HBM; shard more, recompute, or pass --allow-oom to simulate anyway",
                        j.job().name(), peak / 1e9, hbm / 1e9));
            }
        }
        SharedSummary summary = SharedSummary.of(run);
        Map<Path, AtomicOutput.Content> files = new LinkedHashMap<>();
        if (cmd.reportOptions.wanted()) {
            org.clustersim.cli.report.Report report = org.clustersim.cli.report.SharedPage.report(run, summary,
                    "clustersim " + Version.current());
            if (cmd.reportOptions.report != null) {
                files.put(cmd.reportOptions.report, out -> org.clustersim.cli.report.HtmlReport.write(report, out));
            }
            if (cmd.reportOptions.plots != null) {
                files.putAll(org.clustersim.cli.report.PlotFiles.of(report, cmd.reportOptions.plots));
            }
        }
        if (tracePath != null) {
            // link tracks recorded only for the report's heat map stay out: the trace is the same without a report
            Timeline timeline = SharedTrace.timeline(run, shared.topology(),
                    shared.output().linkCounters() || !cmd.reportOptions.wanted());
            Map<String, String> otherData = new LinkedHashMap<>();
            otherData.put("scenario", shared.name());
            otherData.put("generator", "clustersim " + Version.current());
            List<ChromeTraceWriter.Marker> markers = new ArrayList<>();
            shared.faults().forEach(f -> markers.addAll(f.markers()));
            files.put(tracePath, out -> format.write(timeline, out, otherData, markers));
        }
        if (summaryPath != null) {
            files.put(summaryPath, OutputFiles.json(summary));
        }
        if (cmd.csv != null) {
            files.put(cmd.csv, summary::writeCsv);
        }
        OutputFiles.write(files);
        PrintWriter err = cmd.spec.commandLine().getErr();
        for (String w : Fault.lateWarnings(shared.faults(), run.result().timeline().makespan())) {
            err.println("warning: " + w);
        }
        err.flush();
        PrintWriter out = cmd.spec.commandLine().getOut();
        out.printf("shared     %s (%s), %d jobs simulated together and each alone%n", shared.name(), shared.source(),
                shared.jobs().size());
        summary.print(out, org.clustersim.cli.output.DeviceWords.of(shared.cluster()));
        if (tracePath != null) {
            out.printf("trace      %s (a process per job)%n", tracePath);
        }
        if (summaryPath != null) {
            out.printf("summary    %s%n", summaryPath);
        }
        if (cmd.csv != null) {
            out.printf("csv        %s%n", cmd.csv);
        }
        RunCommand.printReport(out, cmd.reportOptions);
        out.printf(java.util.Locale.ROOT, "wall       %.2f s%n", wall);
        out.flush();
        return 0;
    }
}
