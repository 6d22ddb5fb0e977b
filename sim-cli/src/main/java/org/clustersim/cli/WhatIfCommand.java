package org.clustersim.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import org.clustersim.study.engine.Progress;
import org.clustersim.study.engine.TaskEngine;
import org.clustersim.cli.output.AtomicOutput;
import org.clustersim.cli.output.MemoryTracks;
import org.clustersim.cli.output.RunSummary;
import org.clustersim.cli.report.RunData;
import org.clustersim.cli.report.WhatIfPages;
import org.clustersim.study.scenario.Fault;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;
import org.clustersim.study.SimulatedStep;
import org.clustersim.study.whatif.Cable;
import org.clustersim.study.whatif.Comparison;
import org.clustersim.study.whatif.Outcome;
import org.clustersim.study.whatif.Ranking;
import org.clustersim.study.whatif.WhatIfStudy;
import org.clustersim.core.input.InputException;
import org.clustersim.core.input.InputFile;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.trace.ChromeTraceWriter;
import org.clustersim.core.trace.TraceFormat;
import org.clustersim.topology.Topology;
import org.clustersim.topology.Vertex;
import org.clustersim.topology.VertexKind;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code clustersim whatif SCENARIO}: the scenario against a variant with extra faults, side
 * by side, or a sweep that fails each matching cable (or slows each pipeline stage's GPUs) in
 * turn and ranks them by the slowdown they cause. A shared-cluster file goes to
 * {@link SharedClusterWhatIf}.
 */
@Command(name = "whatif", mixinStandardHelpOptions = true,
        description = "Compare a scenario with a faulty variant (--fail, --degrade, --slow), or sweep faults over "
                + "links or stragglers and rank them by slowdown. A shared-cluster file (a jobs list) takes one variant: "
                + "each job's step before and after, and the aggregate throughput.")
public final class WhatIfCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "SCENARIO", description = "Scenario file (.yaml, .yml or .json), or a "
            + "shared-cluster file.")
    Path scenarioFile;

    @Option(names = "--fail", paramLabel = "NAME", description = "A link (a->b), cable (a<->b), switch or NIC that "
            + "is down for the whole step; repeatable.")
    List<String> fail = new ArrayList<>();

    @Option(names = "--degrade", paramLabel = "NAME=FRACTION", description = "A link, cable, switch or NIC left with "
            + "FRACTION of its capacity; repeatable.")
    List<String> degrade = new ArrayList<>();

    @Option(names = "--slow", paramLabel = "GPU=FACTOR", description = "A GPU computing at FACTOR of its speed "
            + "(0.8: every kernel 1.25x as long); repeatable.")
    List<String> slow = new ArrayList<>();

    @Option(names = "--sweep", paramLabel = "links[=FILTER]|stragglers", description = "Fail each matching cable in "
            + "turn (FILTER: a class such as leaf-spine, or text in the name), or slow one GPU per pipeline stage "
            + "and TP position; rank by slowdown.")
    String sweep;

    @Option(names = "--sample", paramLabel = "N", description = "Sweep a seeded sample of N cables instead of all.")
    int sample;

    @Option(names = "--seed", paramLabel = "S", description = "Seed of --sample (default ${DEFAULT-VALUE}).",
            defaultValue = "1")
    long seed;

    @Option(names = "--slow-factor", paramLabel = "F", description = "Speed of the straggler in --sweep stragglers "
            + "(default ${DEFAULT-VALUE}).", defaultValue = "0.8")
    double slowFactor;

    /** Most parallel simulations accepted. */
    static final int MAX_THREADS = 256;

    @CommandLine.Mixin
    TaskEngineOptions engineOptions = new TaskEngineOptions();

    @Option(names = "--json", paramLabel = "FILE.json", description = "Write the comparison or ranking as JSON.")
    Path json;

    @Option(names = "--csv", paramLabel = "FILE.csv", description = "Write a sweep's ranking as CSV.")
    Path csv;

    @Option(names = "--trace-dir", paramLabel = "DIR", description = "Where the baseline and variant traces go "
            + "(default: traces).")
    Path traceDir = Path.of("traces");

    @CommandLine.Mixin
    TraceFormatOption traceFormat = new TraceFormatOption();

    @Option(names = "--no-trace", description = "Write no traces.")
    boolean noTrace;

    @Option(names = "--top", paramLabel = "N", description = "Rows of a sweep's ranking to print (default "
            + "${DEFAULT-VALUE}).", defaultValue = "15")
    int top;

    @CommandLine.Mixin
    ReportOptions reportOptions = new ReportOptions();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        org.clustersim.core.input.SourceNode tree = new org.clustersim.core.input.SourceTreeReader().read(scenarioFile);
        if (org.clustersim.study.scenario.SharedScenarioReader.isShared(tree)) {
            return SharedClusterWhatIf.call(this, scenarioFile, tree);
        }
        Scenario scenario = new ScenarioReader().read(scenarioFile, tree);
        boolean variant = !fail.isEmpty() || !degrade.isEmpty() || !slow.isEmpty();
        if (sweep != null && variant) {
            throw usage("give --sweep or --fail/--degrade/--slow, not both");
        }
        if (sweep == null && !variant) {
            throw usage("nothing to compare: give --fail, --degrade, --slow or --sweep");
        }
        if (engineOptions.threads < 1 || engineOptions.threads > MAX_THREADS) {
            throw usage("--threads: found " + engineOptions.threads + ", expected 1 to " + MAX_THREADS);
        }
        if (sample < 0) {
            throw usage("--sample: found " + sample + ", expected 0 (every link) or more");
        }
        if (top < 0) {
            throw usage("--top: found " + top + ", expected 0 or more rows");
        }
        if (!(slowFactor > 0 && slowFactor <= 1)) {
            throw usage("--slow-factor must be in (0, 1], found " + slowFactor);
        }
        // every output is checked before simulating: all of them are written, or none
        Map<String, Path> targets = new LinkedHashMap<>();
        targets.put("--json", json);
        targets.put("--csv", csv);
        targets.put("--report", reportOptions.report);
        if (sweep == null && !noTrace) {
            String ext = traceFormat.format().extension();
            targets.put("--trace-dir (baseline trace)", traceDir.resolve(scenario.name() + ".baseline" + ext));
            targets.put("--trace-dir (variant trace)", traceDir.resolve(scenario.name() + ".whatif" + ext));
        }
        OutputFiles.check(targets);
        // the study builds the step: a cluster too large to build is refused before
        WorkEstimate.requireClusterFits(scenario);
        if (sweep != null) {
            engineOptions.check();
        }
        // the file's text travels to a distributed engine's workers, which rebuild the study from it
        WhatIfStudy study = new WhatIfStudy(scenario, sweep == null ? null
                : InputFile.readText(scenarioFile, InputFile.MAX_STRUCTURED_BYTES, "a scenario file"));
        return sweep == null ? compare(study) : sweep(study);
    }

    CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    /** The extra faults given by flags. */
    List<Fault> flagged(Topology topology) {
        List<Fault> faults = new ArrayList<>();
        for (String f : fail) {
            faults.add(Fault.down(target(f, topology, "--fail"), f, "--fail " + f));
        }
        for (String d : degrade) {
            String[] kv = split(d, "--degrade", "NAME=FRACTION, e.g. su0.leaf0->spine1=0.5");
            double fraction = number(kv[1], "--degrade " + d);
            if (!(fraction > 0 && fraction <= 1)) {
                throw usage("--degrade " + d + ": the fraction must be in (0, 1]; use --fail for a link that is down");
            }
            faults.add(Fault.degraded(target(kv[0], topology, "--degrade"), kv[0], fraction, "--degrade " + d));
        }
        for (String s : slow) {
            String[] kv = split(s, "--slow", "GPU=FACTOR, e.g. node3.gpu5=0.8");
            double factor = number(kv[1], "--slow " + s);
            if (!(factor > 0 && factor <= 1)) {
                throw usage("--slow " + s + ": the factor must be in (0, 1] (0.8: 80% of nominal speed)");
            }
            faults.add(Fault.slow(kv[0], factor, "--slow " + s));
        }
        return faults;
    }

    private String[] split(String value, String flag, String expected) {
        int eq = value.lastIndexOf('=');
        if (eq <= 0 || eq == value.length() - 1) {
            throw usage(flag + " " + value + ": expected " + expected);
        }
        return new String[] {value.substring(0, eq), value.substring(eq + 1)};
    }

    private double number(String text, String where) {
        try {
            return Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw usage(where + ": '" + text + "' is not a number");
        }
    }

    /** Which kind of thing a name on the command line is: a link or cable by its arrow, else a switch or NIC. */
    private Fault.Target target(String name, Topology topology, String flag) {
        if (name.contains("->") || name.contains("<->")) {
            return Fault.Target.LINK;
        }
        for (Vertex v : topology.vertices()) {
            if (v.name().equals(name)) {
                if (v.kind() == VertexKind.NIC) {
                    return Fault.Target.NIC;
                }
                if (v.kind() == VertexKind.ACCELERATOR) {
                    throw usage(flag + " " + name + ": that is a GPU; slow it with --slow " + name + "=0.8");
                }
                return Fault.Target.SWITCH;
            }
        }
        return Fault.Target.LINK; // unknown: reported with the nearest link names
    }

    private int compare(WhatIfStudy study) throws IOException {
        Scenario scenario = study.scenario();
        List<Fault> faults = flagged(study.topology());
        WorkEstimate.of(scenario, !noTrace).times(1, 2).requireFits();
        Map<Path, AtomicOutput.Content> files = new LinkedHashMap<>();
        String ext = traceFormat.format().extension();
        Path baseTrace = noTrace ? null : traceDir.resolve(scenario.name() + ".baseline" + ext);
        Path variantTrace = noTrace ? null : traceDir.resolve(scenario.name() + ".whatif" + ext);
        RunData[] measured = new RunData[2];
        long[] baseEnd = new long[1];
        Outcome base = study.run("baseline", "", List.of(), r -> {
            addTrace(files, baseTrace, r, scenario, "baseline", List.of());
            measured[0] = measure(study, r);
            baseEnd[0] = r.figures().makespanNs();
        }, reportOptions.wanted());
        if (base.failed()) {
            throw new InputException("the scenario's own faults cut the cluster apart: " + base.failure());
        }
        String label = String.join(", ", faults.stream().map(Fault::describe).toList());
        Outcome var = study.run(label, "", faults, r -> {
            addTrace(files, variantTrace, r, scenario, label, faults);
            measured[1] = measure(study, r);
        }, reportOptions.wanted());
        if (var.failed()) {
            throw new InputException("the faults cut the cluster apart: " + var.failure()
                    + "; nothing was written");
        }
        PrintWriter err = spec.commandLine().getErr();
        for (String w : Fault.lateWarnings(scenario.faults(), baseEnd[0])) {
            err.println("warning: " + w);
        }
        err.flush();
        List<Comparison.LinkChange> changes = Comparison.linkChanges(study.topology(), base, var, 10);
        if (json != null) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("scenario", scenario.name());
            doc.put("faults", faults.stream().map(Fault::describe).toList());
            doc.put("baseline", Comparison.summary(base));
            doc.put("variant", Comparison.summary(var));
            doc.put("slowdown", var.slowdown(base));
            doc.put("linkChanges", changes);
            files.put(json, OutputFiles.json(doc));
        }
        reportOptions.stage(files, () -> WhatIfPages.comparison(measured[0], measured[1], label, changes,
                "clustersim " + Version.current()), scenario, measured[0] == null ? new Timeline[0]
                : new Timeline[] {measured[0].run().timeline(), measured[1].run().timeline()});
        OutputFiles.write(files);
        Comparison.print(spec.commandLine().getOut(), scenario, base, var, changes, baseTrace, variantTrace);
        RunCommand.printReport(spec.commandLine().getOut(), reportOptions);
        return 0;
    }

    /** What a report shows of one run of the study (only when a report is wanted: memory tracks cost time). */
    private RunData measure(WhatIfStudy study, SimulatedStep r) {
        if (!reportOptions.wanted()) {
            return null;
        }
        MemoryTracks.add(r.result().timeline(), study.step(), study.built());
        return RunData.of(study.scenario(), study.step(), r.result(), RunSummary.of(study.scenario(), r));
    }

    private void addTrace(Map<Path, AtomicOutput.Content> files, Path path, SimulatedStep r,
                                 Scenario scenario, String label, List<Fault> extra) {
        if (path == null) {
            return;
        }
        List<ChromeTraceWriter.Marker> markers = new ArrayList<>();
        scenario.faults().forEach(f -> markers.addAll(f.markers()));
        extra.forEach(f -> markers.addAll(f.markers()));
        Map<String, String> meta = new LinkedHashMap<>();
        meta.put("scenario", scenario.name());
        meta.put("variant", label);
        meta.put("generator", "clustersim " + Version.current());
        TraceFormat format = traceFormat.format();
        files.put(path, out -> format.write(r.result().timeline(), out, meta, markers));
    }

    private int sweep(WhatIfStudy study) throws IOException {
        Scenario scenario = study.scenario();
        List<WhatIfStudy.Variant> variants = new ArrayList<>();
        String kind;
        if (sweep.equals("stragglers")) {
            kind = "stragglers";
            var step = study.step();
            for (int p = 0; p < step.pp(); p++) {
                for (int t = 0; t < step.tp(); t++) {
                    String gpu = study.topology().device(step.device(t, 0, p, 0)).name();
                    variants.add(new WhatIfStudy.Variant("gpu " + gpu + " (pipeline rank " + p + ", tp rank " + t
                            + ")", "", List.of(Fault.slow(gpu, slowFactor, "--sweep stragglers"))));
                }
            }
        } else if (sweep.equals("links") || sweep.startsWith("links=")) {
            kind = "links";
            String filter = sweep.startsWith("links=") ? sweep.substring(6) : "";
            List<Cable> cables = Cable.select(study.topology(), filter, sample, seed);
            if (cables.isEmpty()) {
                throw usage("--sweep " + sweep + ": no cable matches '" + filter + "'; classes are nvlink, gpu-nic, "
                        + "nic-switch, leaf-spine, spine-core, switch-switch, ici, dcn, or give text from a link name");
            }
            for (Cable c : cables) {
                variants.add(new WhatIfStudy.Variant(c.name(), c.clazz(), List.of(Fault.down(Fault.Target.LINK,
                        c.name(), "--sweep links"))));
            }
        } else {
            throw usage("--sweep " + sweep + ": expected links, links=FILTER or stragglers");
        }
        WorkEstimate.of(scenario, false).times(Math.min(engineOptions.threads, variants.size()), variants.size() + 1L)
                .requireFits();
        RunData[] baseline = new RunData[1];
        Outcome base = study.run("baseline", "", List.of(), reportOptions.wanted()
                ? r -> baseline[0] = measure(study, r) : null, reportOptions.wanted());
        if (base.failed()) {
            throw new InputException("the scenario's own faults cut the cluster apart: " + base.failure());
        }
        PrintWriter err = spec.commandLine().getErr();
        Progress progress = new Progress(err, variants.size(), System.console() != null);
        List<Outcome> outcomes;
        try (TaskEngine tasks = engineOptions.open("clustersim whatif " + scenario.name())) {
            err.printf(Locale.ROOT, "whatif: %d variants of %s on %s%n", variants.size(), scenario.name(),
                    tasks.describe());
            err.flush();
            outcomes = new ArrayList<>(study.runAll(variants, tasks, progress));
        }
        outcomes.sort(Comparator.comparingDouble((Outcome o) -> -o.slowdown(base)).thenComparing(Outcome::label));
        Map<Path, AtomicOutput.Content> files = new LinkedHashMap<>();
        if (csv != null) {
            files.put(csv, out -> out.write(Ranking.csv(base, outcomes).getBytes(StandardCharsets.UTF_8)));
        }
        if (json != null) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("scenario", scenario.name());
            doc.put("sweep", sweep);
            doc.put("seed", seed);
            doc.put("sample", sample);
            doc.put("baseline", Comparison.summary(base));
            doc.put("byClass", Ranking.byClass(base, outcomes));
            List<Map<String, Object>> ranking = new ArrayList<>();
            for (Outcome o : outcomes) {
                Map<String, Object> m = Comparison.summary(o);
                m.put("slowdown", o.failed() ? null : o.slowdown(base));
                ranking.add(m);
            }
            doc.put("ranking", ranking);
            files.put(json, OutputFiles.json(doc));
        }
        reportOptions.stage(files, () -> WhatIfPages.ranking(baseline[0], base, outcomes, sweep,
                "clustersim " + Version.current()), scenario);
        OutputFiles.write(files);
        Ranking.print(spec.commandLine().getOut(), scenario, sweep, kind, sample, seed, slowFactor, top, base, outcomes);
        RunCommand.printReport(spec.commandLine().getOut(), reportOptions);
        return 0;
    }
}
