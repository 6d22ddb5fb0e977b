package org.clustersim.cli;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.clustersim.cli.output.AtomicOutput;
import org.clustersim.cli.output.SharedTrace;
import org.clustersim.core.input.SourceNode;
import org.clustersim.core.trace.ChromeTraceWriter;
import org.clustersim.core.trace.TraceFormat;
import org.clustersim.study.scenario.Fault;
import org.clustersim.study.scenario.Placement;
import org.clustersim.study.scenario.SharedScenario;
import org.clustersim.study.scenario.SharedScenarioReader;
import org.clustersim.study.shared.SharedRun;
import org.clustersim.study.shared.SharedWhatIf;
import org.clustersim.study.whatif.Comparison;

/**
 * {@code clustersim whatif SHARED.yaml --fail/--degrade/--slow}: a shared-cluster file (its own
 * faults included) against the same file with the flags' faults ({@link SharedWhatIf}); prints per
 * job its step time together before and after and the change, and the aggregate throughput before
 * and after, so a failed spine link shows which jobs it hurts. {@code --json} and {@code --csv}
 * carry the same per job; traces (a process per job) of both runs go to {@code --trace-dir}.
 * Outputs are checked before and written all-or-nothing after the runs.
 */
final class SharedClusterWhatIf {
    private SharedClusterWhatIf() {
    }

    static int call(WhatIfCommand cmd, Path file, SourceNode tree) {
        boolean variant = !cmd.fail.isEmpty() || !cmd.degrade.isEmpty() || !cmd.slow.isEmpty();
        if (cmd.sweep != null) {
            throw cmd.usage("--sweep: a shared-cluster file takes one variant (--fail, --degrade, --slow); sweeps "
                    + "take a single-job scenario");
        }
        if (!variant) {
            throw cmd.usage("nothing to compare: give --fail, --degrade or --slow");
        }
        if (cmd.reportOptions.wanted()) {
            throw cmd.usage("--report/--plots: a shared-cluster what-if has no report; 'run SHARED.yaml --report' "
                    + "draws one run (with the faults in the file's faults list)");
        }
        if (cmd.engineOptions.threads < 1 || cmd.engineOptions.threads > WhatIfCommand.MAX_THREADS) {
            throw cmd.usage("--threads: found " + cmd.engineOptions.threads + ", expected 1 to "
                    + WhatIfCommand.MAX_THREADS);
        }
        SharedScenario shared = new SharedScenarioReader().read(file, tree);
        String ext = cmd.traceFormat.format().extension();
        Path baseTrace = cmd.noTrace ? null : cmd.traceDir.resolve(shared.name() + ".baseline" + ext);
        Path variantTrace = cmd.noTrace ? null : cmd.traceDir.resolve(shared.name() + ".whatif" + ext);
        Map<String, Path> targets = new LinkedHashMap<>();
        targets.put("--json", cmd.json);
        targets.put("--csv", cmd.csv);
        targets.put("--trace-dir (baseline trace)", baseTrace);
        targets.put("--trace-dir (variant trace)", variantTrace);
        OutputFiles.check(targets);
        List<Fault> faults = cmd.flagged(shared.topology());
        for (SharedScenario.Job j : shared.jobs()) {
            WorkEstimate.of(j.scenario(), j.scenario().trainingStep(), !cmd.noTrace).times(1, 2).requireFits();
        }
        SharedWhatIf study = SharedWhatIf.of(shared, faults, cmd.engineOptions.threads);
        String label = String.join(", ", faults.stream().map(Fault::describe).toList());
        Map<Path, AtomicOutput.Content> files = new LinkedHashMap<>();
        if (baseTrace != null) {
            files.put(baseTrace, trace(shared, study.baseline(), cmd.traceFormat.format(), "baseline", List.of()));
            files.put(variantTrace, trace(shared, study.variant(), cmd.traceFormat.format(), label, faults));
        }
        if (cmd.json != null) {
            files.put(cmd.json, OutputFiles.json(json(shared, study)));
        }
        if (cmd.csv != null) {
            files.put(cmd.csv, out -> {
                Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
                w.write("job,servers,stepTimeNs,variantStepTimeNs,deltaNs,slowdown,tokensPerSecond,"
                        + "variantTokensPerSecond\n");
                for (int i = 0; i < study.changes().size(); i++) {
                    SharedWhatIf.JobChange c = study.changes().get(i);
                    w.write(String.format(Locale.ROOT, "%s,\"%s\",%d,%d,%d,%.6f,%.3f,%.3f%n", c.job(),
                            Placement.ranges(c.run().job().servers()), c.before(), c.after(), c.deltaNs(),
                            c.slowdown(), study.baseline().jobs().get(i).figures().tokensPerSecond(),
                            c.run().figures().tokensPerSecond()));
                }
                w.flush();
            });
        }
        OutputFiles.write(files);
        PrintWriter err = cmd.spec.commandLine().getErr();
        for (String w : Fault.lateWarnings(shared.faults(), study.baseline().result().timeline().makespan())) {
            err.println("warning: " + w);
        }
        err.flush();
        print(cmd.spec.commandLine().getOut(), shared, study, label, baseTrace, variantTrace);
        return 0;
    }

    private static AtomicOutput.Content trace(SharedScenario shared, SharedRun run, TraceFormat format, String label,
                                              List<Fault> extra) {
        List<ChromeTraceWriter.Marker> markers = new ArrayList<>();
        shared.faults().forEach(f -> markers.addAll(f.markers()));
        extra.forEach(f -> markers.addAll(f.markers()));
        Map<String, String> meta = new LinkedHashMap<>();
        meta.put("scenario", shared.name());
        meta.put("variant", label);
        meta.put("generator", "clustersim " + Version.current());
        return out -> format.write(SharedTrace.timeline(run, shared.topology(), shared.output().linkCounters()), out,
                meta, markers);
    }

    private static Map<String, Object> json(SharedScenario shared, SharedWhatIf study) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("scenario", shared.name());
        doc.put("faults", study.faults().stream().map(Fault::describe).toList());
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (int i = 0; i < study.changes().size(); i++) {
            SharedWhatIf.JobChange c = study.changes().get(i);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("job", c.job());
            m.put("servers", Placement.ranges(c.run().job().servers()));
            m.put("stepTimeNs", c.before());
            m.put("variantStepTimeNs", c.after());
            m.put("deltaNs", c.deltaNs());
            m.put("slowdown", c.slowdown());
            m.put("variantAloneStepTimeNs", c.run().alone().stepTimeNs());
            m.put("tokensPerSecond", study.baseline().jobs().get(i).figures().tokensPerSecond());
            m.put("variantTokensPerSecond", c.run().figures().tokensPerSecond());
            jobs.add(m);
        }
        doc.put("jobs", jobs);
        doc.put("tokensPerSecond", study.baseline().tokensPerSecond());
        doc.put("variantTokensPerSecond", study.variant().tokensPerSecond());
        return doc;
    }

    private static void print(PrintWriter out, SharedScenario shared, SharedWhatIf study, String label, Path baseTrace,
                              Path variantTrace) {
        out.printf(Locale.ROOT, "shared     %s (%s), %d jobs simulated together, with and without the variant%n",
                shared.name(), shared.source(), shared.jobs().size());
        out.printf(Locale.ROOT, "variant    %s%n%n", label);
        out.printf(Locale.ROOT, "%-16s %-22s %14s %14s %14s %10s %16s%n", "job", "servers", "step before", "step after",
                "delta", "change", "tokens/s after");
        for (SharedWhatIf.JobChange c : study.changes()) {
            String servers = Placement.ranges(c.run().job().servers());
            out.printf(Locale.ROOT, "%-16s %-22s %14s %14s %+11.3f ms %+9.2f%% %,16.0f%n", c.job(),
                    servers.length() <= 22 ? servers : servers.substring(0, 19) + "...", Comparison.seconds(c.before()),
                    Comparison.seconds(c.after()), c.deltaNs() / 1e6, 100 * (c.slowdown() - 1),
                    c.run().figures().tokensPerSecond());
        }
        double before = study.baseline().tokensPerSecond();
        double after = study.variant().tokensPerSecond();
        out.printf(Locale.ROOT, "%naggregate  %,.0f -> %,.0f tokens/s (%+.2f%%)%n", before, after,
                before == 0 ? 0 : 100 * (after / before - 1));
        for (SharedWhatIf.JobChange c : study.changes()) {
            if (!c.run().overlapped()) {
                out.printf(Locale.ROOT, "note       job %s's measured step ended after another job had finished: give"
                        + " it fewer steps or the others more (simulation.steps), or give simulation: {steps: auto}%n",
                        c.job());
            }
        }
        if (baseTrace != null) {
            out.printf(Locale.ROOT, "traces     %s, %s (a process per job)%n", baseTrace, variantTrace);
        }
        out.flush();
    }
}
