package org.clustersim.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import org.clustersim.study.engine.TaskEngine;
import org.clustersim.cli.output.AtomicOutput;
import org.clustersim.study.plan.BaseScenario;
import org.clustersim.study.plan.Candidate;
import org.clustersim.study.plan.DesignSpace;
import org.clustersim.study.plan.PlanReport;
import org.clustersim.study.plan.PlanSearch;
import org.clustersim.strategies.pipeline.ScheduleKind;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code clustersim plan}: the fastest layout for a model on a cluster, by simulating the
 * candidates of a design space ({@link PlanSearch}) on this machine's cores or on a distributed
 * engine, ranked by tokens per second per GPU ({@link PlanReport}); writes the ranking as CSV and
 * JSON and the winner as a scenario that {@code clustersim run} reproduces.
 */
@Command(name = "plan", mixinStandardHelpOptions = true,
        description = "Search the layouts (tp, pp, cp, ep, v, microbatch, recomputation, ZeRO, schedule) of a model "
                + "on a cluster: drop those over HBM, bound the rest from below, simulate the promising ones on all "
                + "cores (or Spark), rank by tokens/s per GPU and write the winner's scenario.")
public final class PlanCommand implements Callable<Integer> {
    @Option(names = "--model", paramLabel = "PRESET|FILE", description = "Model preset (see presets) or a YAML file "
            + "with a model section.")
    String model;

    @Option(names = "--cluster", paramLabel = "PRESET|FILE", description = "Cluster preset (superpod-h100-4su, "
            + "dgx-h100 with --nodes, ...) or a scenario file whose cluster and network sections are used.")
    String cluster;

    @Option(names = "--nodes", paramLabel = "N", description = "Servers for a single-server preset such as dgx-h100.")
    int nodes;

    @Option(names = "--base", paramLabel = "FILE", description = "A scenario whose other fields every candidate keeps "
            + "(precision, network, interference, fixed parallelism options such as etp or tpCommOverlap).")
    Path base;

    @Option(names = "--global-batch", paramLabel = "SEQUENCES", description = "Sequences per step.")
    Integer globalBatch;

    @Option(names = "--seq", paramLabel = "TOKENS", description = "Tokens per sequence.")
    Integer seq;

    @Option(names = "--tp", split = ",", defaultValue = "1,2,4,8", paramLabel = "N", description = "Tensor-parallel sizes (default 1,2,4,8).")
    List<Integer> tp;

    @Option(names = "--pp", split = ",", defaultValue = "1,2,4,8", paramLabel = "N", description = "Pipeline sizes (default 1,2,4,8).")
    List<Integer> pp;

    @Option(names = "--cp", split = ",", defaultValue = "1,2", paramLabel = "N", description = "Context-parallel sizes (default 1,2).")
    List<Integer> cp;

    @Option(names = "--ep", split = ",", defaultValue = "1", paramLabel = "N", description = "Expert-parallel sizes (default 1).")
    List<Integer> ep;

    @Option(names = "--vp", split = ",", defaultValue = "2", paramLabel = "V", description = "Chunks per rank for the interleaved "
            + "schedule (default 2).")
    List<Integer> vp;

    @Option(names = "--mb", split = ",", defaultValue = "1,2", paramLabel = "N", description = "Microbatch sizes (default 1,2).")
    List<Integer> mb;

    @Option(names = "--recompute", split = ",", defaultValue = "selective,full", paramLabel = "POLICY", description = "none, selective, full "
            + "(default selective,full).")
    List<String> recompute;

    @Option(names = "--zero", split = ",", defaultValue = "1", paramLabel = "STAGE", description = "ZeRO stages (default 1).")
    List<Integer> zero;

    @Option(names = "--schedule", split = ",", defaultValue = "1f1b,interleaved", paramLabel = "KIND", description = "Pipeline schedules (default "
            + "1f1b,interleaved).")
    List<String> schedule;

    @Option(names = "--top", paramLabel = "N", defaultValue = "10", description = "Rows to print; the search keeps "
            + "these exact (default ${DEFAULT-VALUE}).")
    int top;

    @Option(names = "--wave", paramLabel = "N", defaultValue = "16", description = "Candidates simulated between "
            + "updates of the pruning threshold (default ${DEFAULT-VALUE}); changes how many are simulated, never "
            + "the top N.")
    int wave;

    @Option(names = "--price-per-gpu-hour", paramLabel = "DOLLARS", description = "Also show the cost per million "
            + "tokens.")
    double price;

    @CommandLine.Mixin
    TaskEngineOptions engineOptions = new TaskEngineOptions();

    @Option(names = "--out", paramLabel = "DIR", description = "Where the CSV, JSON and winner scenario go "
            + "(default ${DEFAULT-VALUE}).", defaultValue = "plans")
    Path out;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (top < 1 || wave < 1 || engineOptions.threads < 1 || price < 0 || nodes < 0) {
            throw usage("--top, --wave and --threads must be at least 1, --price-per-gpu-hour and --nodes not "
                    + "negative");
        }
        for (var e : Map.of("--tp", tp, "--pp", pp, "--cp", cp, "--ep", ep, "--vp", vp, "--mb", mb).entrySet()) {
            if (e.getValue().isEmpty() || e.getValue().stream().anyMatch(v -> v < 1)) {
                throw usage(e.getKey() + " " + e.getValue() + ": expected positive sizes, comma-separated");
            }
        }
        if (zero.stream().anyMatch(z -> z < 0 || z > 3)) {
            throw usage("--zero " + zero + ": expected stages 0 to 3");
        }
        for (String r : recompute) {
            if (!List.of("none", "selective", "full").contains(r)) {
                throw usage("--recompute " + r + ": expected none, selective or full");
            }
        }
        List<String> kinds = java.util.Arrays.stream(ScheduleKind.values()).map(ScheduleKind::id).toList();
        for (String s : schedule) {
            if (!kinds.contains(s)) {
                throw usage("--schedule " + s + ": expected one of " + String.join(", ", kinds));
            }
        }
        BaseScenario scenario = BaseScenario.of(base, model, cluster, nodes, globalBatch, seq);
        DesignSpace space = new DesignSpace(tp, pp, cp, ep, vp, mb, recompute, zero, schedule);
        PlanSearch search = new PlanSearch(scenario, space, top, wave);
        PrintWriter err = spec.commandLine().getErr();
        long t0 = System.nanoTime();
        PlanSearch.Result result;
        String engineName;
        try (TaskEngine tasks = engineOptions.open("clustersim plan")) {
            engineName = tasks.describe();
            err.printf(Locale.ROOT, "plan: running on %s%n", engineName);
            err.flush();
            result = search.run(tasks, err, System.console() != null);
        }
        PlanReport report = new PlanReport(result, price).keeping(top);
        String stem = String.format(Locale.ROOT, "%s-%dgpus-gb%d-s%d", scenario.modelName(), result.frame().gpus(),
                result.frame().globalBatch(), result.frame().seqLen());
        Path csv = out.resolve(stem + ".csv");
        Path json = out.resolve(stem + ".json");
        Path winner = out.resolve(stem + ".winner.yaml");
        boolean ranked = !result.ranking().isEmpty();
        Map<Path, AtomicOutput.Content> files = new LinkedHashMap<>();
        files.put(csv, o -> o.write(report.csv().getBytes(StandardCharsets.UTF_8)));
        files.put(json, OutputFiles.json(report.json(ranked ? winner.toString() : null)));
        if (ranked) {
            Candidate w = result.candidates().get(report.winner().index());
            files.put(winner, o -> o.write(w.scenario().getBytes(StandardCharsets.UTF_8)));
        }
        OutputFiles.write(files);
        report.print(spec.commandLine().getOut(), top, ranked ? winner.toString() : "none");
        err.printf(Locale.ROOT, "plan: %.1f s on %s; wrote %s, %s%s%n", (System.nanoTime() - t0) / 1e9, engineName,
                csv, json, ranked ? ", " + winner : "");
        err.flush();
        return ranked ? 0 : ClusterSim.BAD_INPUT;
    }

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }
}
