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
import org.clustersim.cli.output.SummaryText;
import org.clustersim.cli.scenario.FaultEvents;
import org.clustersim.cli.scenario.Scenario;
import org.clustersim.cli.scenario.ScenarioReader;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.Interference;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.trace.ChromeTraceWriter;
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
                + "print the summary and write the trace.")
public final class RunCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "SCENARIO", description = "Scenario file (.yaml, .yml or .json).")
    Path scenarioFile;

    @Option(names = "--trace", paramLabel = "FILE",
            description = "Chrome trace output (default: output.trace of the scenario, else traces/<name>.json).")
    Path trace;

    @Option(names = "--no-trace", description = "Write no Chrome trace (large runs: the trace of a 16K-GPU step is gigabytes).")
    boolean noTrace;

    @Option(names = "--allow-oom", description = "Report, but do not fail on, GPUs whose peak memory exceeds HBM.")
    boolean allowOom;

    @Option(names = "--csv", paramLabel = "FILE.csv", description = "Also write one row per GPU as CSV.")
    Path csv;

    @Option(names = "--summary", paramLabel = "FILE.json",
            description = "Also write the summary as JSON (default: output.summary of the scenario, if any).")
    Path summary;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        Scenario scenario = new ScenarioReader().read(scenarioFile);
        if (noTrace && trace != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "give --trace FILE or --no-trace, not both");
        }
        Path tracePath = noTrace ? null : trace != null ? trace
                : scenario.output().trace().map(Path::of).orElse(Path.of("traces", scenario.name() + ".json"));
        Path summaryPath = summary != null ? summary : scenario.output().summary().map(Path::of).orElse(null);
        // every output is checked before the (possibly long) simulation, so a bad path costs nothing
        Map<String, Path> targets = new LinkedHashMap<>();
        targets.put(trace != null ? "--trace" : "output.trace", tracePath);
        targets.put(summary != null ? "--summary" : "output.summary", summaryPath);
        targets.put("--csv", csv);
        OutputFiles.check(targets);
        long t0 = System.nanoTime();
        TrainingStep step = scenario.trainingStep();
        WorkEstimate.of(scenario, step, tracePath != null).requireFits();
        TrainingStep.Built built = step.build(scenario.stepSequence());
        FaultEvents faults = scenario.faultEvents(step.topology());
        Simulation.Result run = Simulation.run(built.graph(), step.topology(), scenario.fidelity(),
                scenario.routing(), faults.links(), faults.devices(), scenario.output().linkCounters(),
                scenario.interference() ? step.interference(built.graph()) : Interference.NONE);
        Timeline timeline = run.timeline();
        RunSummary result = RunSummary.of(scenario, run, step, built);
        long hbm = scenario.cluster().accelerator().hbmBytes();
        RunSummary.Device worst = result.devices().stream()
                .max(java.util.Comparator.comparingLong(d -> d.memory().peakBytes())).orElseThrow();
        if (worst.memory().peakBytes() > hbm && !allowOom && !scenario.allowOom()) {
            RunSummary.Memory m = worst.memory();
            throw new InputException(String.format(java.util.Locale.ROOT, "%s runs out of memory on %s: peak %.1f GB "
                    + "against %.0f GB of HBM (weights %.1f, gradients %.1f, optimizer state %.1f, workspace %.1f, "
                    + "activations %.1f GB); shard more (tp, pp, ep, zero), recompute, or pass --allow-oom to simulate "
                    + "anyway", scenario.name(), worst.name(), m.peakBytes() / 1e9, hbm / 1e9, m.weightBytes() / 1e9,
                    m.gradientBytes() / 1e9, m.optimizerBytes() / 1e9, m.workspaceBytes() / 1e9,
                    m.activationBytes() / 1e9));
        }
        MemoryTracks.add(timeline, step, built);
        double wall = (System.nanoTime() - t0) / 1e9;

        Map<String, String> otherData = new LinkedHashMap<>();
        otherData.put("scenario", scenario.name());
        otherData.put("generator", "clustersim " + Version.current());
        Map<Path, AtomicOutput.Content> files = new LinkedHashMap<>();
        if (tracePath != null) {
            List<ChromeTraceWriter.Marker> markers = new ArrayList<>();
            scenario.faults().forEach(f -> markers.addAll(f.markers()));
            files.put(tracePath, out -> ChromeTraceWriter.write(timeline, out, otherData, markers));
        }
        if (summaryPath != null) {
            files.put(summaryPath, OutputFiles.json(result));
        }
        if (csv != null) {
            files.put(csv, out -> org.clustersim.cli.output.DeviceCsv.write(result, out));
        }
        OutputFiles.write(files);
        PrintWriter err = spec.commandLine().getErr();
        for (String w : org.clustersim.cli.scenario.Fault.lateWarnings(scenario.faults(), timeline.makespan())) {
            err.println("warning: " + w);
        }
        err.flush();
        PrintWriter out = spec.commandLine().getOut();
        SummaryText.print(out, scenario, result, tracePath, summaryPath, wall);
        return 0;
    }
}
