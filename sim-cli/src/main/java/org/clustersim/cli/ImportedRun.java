package org.clustersim.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.clustersim.cli.output.AtomicOutput;
import org.clustersim.cli.output.ImportedSummary;
import org.clustersim.core.input.InputException;
import org.clustersim.core.trace.TraceFormat;
import org.clustersim.study.scenario.WorkloadScenario;
import org.clustersim.study.scenario.WorkloadScenarioReader;
import org.clustersim.study.workload.EtTaskGraph;
import org.clustersim.study.workload.ImportedStep;

/**
 * {@code run} on a scenario with a {@code workload} section: the imported Chakra trace simulated
 * on the scenario's cluster, a short summary printed and the trace (with the trace's node names)
 * written; {@code --summary} and {@code --csv} write its figures ({@link ImportedSummary}). The
 * report, plots and {@code --et-out} of model scenarios are refused by name.
 */
final class ImportedRun {
    private ImportedRun() {
    }

    static int run(RunCommand c, PrintWriter out) {
        Map<String, Path> refused = new LinkedHashMap<>();
        refused.put("--report", c.reportOptions.report);
        refused.put("--plots", c.reportOptions.plots);
        refused.put("--et-out", c.etOut);
        for (Map.Entry<String, Path> flag : refused.entrySet()) {
            if (flag.getValue() != null) {
                throw new InputException(flag.getKey() + ": not supported yet for a workload scenario ("
                        + c.scenarioFile + " runs an imported trace); expected --trace or --no-trace, --summary, "
                        + "--csv");
            }
        }
        if (c.noTrace && c.trace != null) {
            throw new InputException("give --trace FILE or --no-trace, not both");
        }
        long t0 = System.nanoTime();
        WorkloadScenario scenario = new WorkloadScenarioReader().read(c.scenarioFile);
        Path tracePath = c.noTrace ? null : c.trace != null ? c.trace
                : c.traceFormat.path(Path.of("traces", scenario.name() + ".json"));
        TraceFormat format = tracePath == null ? c.traceFormat.format()
                : c.traceFormat.formatOf(c.trace != null ? "--trace" : "output.trace", tracePath);
        Map<String, Path> targets = new LinkedHashMap<>();
        targets.put(c.trace != null ? "--trace" : "output.trace", tracePath);
        targets.put("--summary", c.summary);
        targets.put("--csv", c.csv);
        OutputFiles.check(targets);

        ImportedStep step = ImportedStep.of(scenario);
        Map<Path, AtomicOutput.Content> files = new LinkedHashMap<>();
        if (tracePath != null) {
            Map<String, String> otherData = new LinkedHashMap<>();
            otherData.put("scenario", scenario.name());
            otherData.put("generator", "clustersim " + Version.current());
            files.put(tracePath, o -> format.write(step.result().timeline(), o, otherData, List.of()));
        }
        ImportedSummary summary = c.summary != null || c.csv != null ? ImportedSummary.of(step) : null;
        if (c.summary != null) {
            files.put(c.summary, OutputFiles.json(summary));
        }
        if (c.csv != null) {
            files.put(c.csv, summary::writeCsv);
        }
        OutputFiles.write(files);
        EtTaskGraph.Built b = step.built();
        out.printf(Locale.ROOT, "scenario   %s (imported Chakra trace %s)%n", scenario.name(), scenario.chakraTrace());
        out.printf(Locale.ROOT, "cluster    %s, %d ranks on devices 0-%d%n", scenario.cluster().name(), b.ranks(),
                b.ranks() - 1);
        out.printf(Locale.ROOT, "tasks      %d compute, %d collectives, %d transfers, %d untimed (memory, metadata, "
                + "host)%n", b.computes(), b.collectives(), b.transfers(), b.untimed());
        out.printf(Locale.ROOT, "step time  %.3f ms%n", step.stepNs() / 1e6);
        out.printf(Locale.ROOT, "compute    %.1f%% of the step busy (mean over ranks)%n", 100 * step.computeBusyShare());
        if (tracePath != null) {
            out.printf(Locale.ROOT, "trace      %s (%s)%n", tracePath, format.name().toLowerCase(Locale.ROOT));
        }
        if (c.summary != null) {
            out.printf(Locale.ROOT, "summary    %s%n", c.summary);
        }
        if (c.csv != null) {
            out.printf(Locale.ROOT, "csv        %s%n", c.csv);
        }
        out.printf(Locale.ROOT, "wall       %.2f s%n", (System.nanoTime() - t0) / 1e9);
        out.flush();
        return 0;
    }
}
