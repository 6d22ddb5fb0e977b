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
        description = "Search the layouts of a model on a cluster (tp, pp, cp and its variant, ep, etp, v, microbatch, "
                + "recomputation and its modules, ZeRO and its ZeRO-3 framework, schedule, TP and param-gather overlap, "
                + "gradient buckets, activation offload): drop those over HBM, estimate the rest without simulating, simulate the "
                + "promising ones on all cores (or Spark), rank by tokens/s per GPU and write the winner's scenario.",
        footer = {"", "The space: every combination of the knobs' lists, in this order: schedule, tp, pp, cp, "
                + "cp-variant, ep, etp, vp, mb, recompute, recompute-modules, zero, zero3-impl, param-gather, "
                + "tp-overlap, bucket-mb, offload, each in the order given and from --space unless its option is "
                + "given. A knob that depends on another is formed "
                + "only where it applies: the CP variant with cp > 1, etp with experts, the modules under selective "
                + "recomputation, the ZeRO-3 framework with ZeRO 3, the param gather with ZeRO 1 or 2, the TP overlap "
                + "with tp > 1 (not with parallel blocks), buckets with dp x cp > 1 below ZeRO 3, offload with pp 1 "
                + "and no recomputation. Elsewhere the field is left to --base once and the knob's other values are "
                + "dropped as meaningless. Also dropped: tp x pp x cp not dividing the GPUs, microbatch x dp not "
                + "dividing the global batch, more stages than layers, every schedule but 1f1b at pp 1 (one stage "
                + "runs them alike), ep > 1 or expert modules without experts, mla_up_proj without latent attention, "
                + "etp not dividing tp x cp or etp x ep a stage's GPUs, ZeRO 3 with ep > 1 or etp != tp, deepspeed "
                + "with pipeline stages, offload of a whole stage, a value with the same effect as an earlier one. "
                + "Each drop is counted by reason once, at the knob that rules it out. The scenario reader rejects "
                + "what else does not fit (counted too).",
                "", "Wide is on the order of 10^5 layouts for a dense model (GPT-3 175B on 1024 A100, global batch "
                + "1536, seq 2048: 286,650), more with experts (ep x etp); narrow is about 200. Neutral values (0, "
                + "base, off) leave the field to --base, so a knob --base fixes is best given as one value."})
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

    @Option(names = "--space", paramLabel = "wide|narrow", defaultValue = "wide", description = "The lists every knob "
            + "takes unless its own option is given: wide (default), the whole space below; narrow, the lists before "
            + "issue 33 (tp 1,2,4,8; pp 1,2,4,8; cp 1,2; ep 1; vp 2; mb 1,2; recompute selective,full; zero 1; "
            + "schedule 1f1b,interleaved), every other option the base's.")
    String space;

    @Option(names = "--schedule", split = ",", paramLabel = "KIND", description = "Pipeline schedules (wide: all, "
            + "gpipe, 1f1b, interleaved, zb-h1, zb-h2, zb-v, dualpipe, dualpipev). At pp 1 only 1f1b (or the first "
            + "listed) is kept.")
    List<String> schedule;

    @Option(names = "--tp", split = ",", paramLabel = "N", description = "Tensor-parallel sizes (wide: 1,2,4,8).")
    List<Integer> tp;

    @Option(names = "--pp", split = ",", paramLabel = "N", description = "Pipeline sizes (wide: 1,2,4,8,16,32,64); "
            + "pp x v above the layers is dropped.")
    List<Integer> pp;

    @Option(names = "--cp", split = ",", paramLabel = "N", description = "Context-parallel sizes (wide: 1,2,4 while "
            + "each rank keeps 1024 tokens of a sequence).")
    List<Integer> cp;

    @Option(names = "--cp-variant", split = ",", paramLabel = "KIND", description = "With cp > 1: all-gather (keys "
            + "and values gathered before attention) or ring (ring attention); base for the base's (wide: "
            + "all-gather,ring).")
    List<String> cpVariant;

    @Option(names = "--ep", split = ",", paramLabel = "N", description = "Expert-parallel sizes; above 1 for models "
            + "with experts only, dividing them (wide: 1,2,4,...,64).")
    List<Integer> ep;

    @Option(names = "--etp", split = ",", paramLabel = "N", description = "Expert tensor-parallel sizes for models "
            + "with experts, dividing tp x cp; 0 for the base's (tp unless it says) (wide: 0,1).")
    List<Integer> etp;

    @Option(names = "--vp", split = ",", paramLabel = "V", description = "Chunks per rank for the interleaved "
            + "schedule, at least 2 (wide: 2,4).")
    List<Integer> vp;

    @Option(names = "--mb", split = ",", paramLabel = "N", description = "Microbatch sizes (wide: 1,2,4,8).")
    List<Integer> mb;

    @Option(names = "--recompute", split = ",", paramLabel = "POLICY", description = "none, selective, full "
            + "(wide: all three).")
    List<String> recompute;

    @Option(names = "--recompute-modules", split = ";", paramLabel = "SET", description = "Under selective "
            + "recomputation, module sets separated by ';', each Megatron-core module names joined by '+' (core_attn, "
            + "mla_up_proj, mlp, moe_act, shared_experts, layernorm), base for the base's (core_attn unless it says). "
            + "Wide: base; core_attn+layernorm; and for dense models core_attn+mlp; core_attn+mlp+layernorm; with "
            + "experts core_attn+moe_act(+shared_experts)+layernorm; with latent attention the same with mla_up_proj.")
    List<String> recomputeModules;

    @Option(names = "--zero", split = ",", paramLabel = "STAGE", description = "ZeRO stages 0 to 3 (wide: 0,1,2,3).")
    List<Integer> zero;

    @Option(names = "--zero3-impl", split = ",", paramLabel = "IMPL", description = "With ZeRO 3, the framework: "
            + "megatron-fsdp, fsdp2, deepspeed (no pipeline), base for the base's (wide: all three).")
    List<String> zero3Impl;

    @Option(names = "--param-gather", split = ",", paramLabel = "off|on", description = "With ZeRO 1 or 2, gather the "
            + "updated weights per bucket ahead of the next forward (overlapParamGather) (wide: off,on).")
    List<String> paramGather;

    @Option(names = "--tp-overlap", split = ",", paramLabel = "off|on", description = "With tp > 1, Megatron-core's "
            + "userbuffers overlap of the sequence-parallel collectives (tpCommOverlap) (wide: off,on).")
    List<String> tpOverlap;

    @Option(names = "--bucket-mb", split = ",", paramLabel = "MB", description = "Gradient bucket sizes in MB below "
            + "ZeRO 3 with dp x cp > 1; 0 for the base's (Megatron-core's rule unless it says) (wide: 0,40).")
    List<Double> bucketMb;

    @Option(names = "--offload", split = ",", paramLabel = "LAYERS", description = "With pp 1 and no recomputation, "
            + "layers whose activations go to host memory (cpuOffloadLayers), fewer than the layers; 0 for none "
            + "(wide: 0 and a quarter, half, three quarters of the layers).")
    List<Integer> offload;

    @Option(names = "--top", paramLabel = "N", defaultValue = "10", description = "Rows to print; the search keeps "
            + "these exact (default ${DEFAULT-VALUE}).")
    int top;

    @Option(names = "--simulate", paramLabel = "N", defaultValue = "50", description = "How many of the "
            + "best-estimated layouts to simulate (default ${DEFAULT-VALUE}, at least --top); the ranking is of "
            + "the simulated ones.")
    int simulateCount;

    @Option(names = "--max-minutes", paramLabel = "MINUTES", defaultValue = "60", description = "Stop a search "
            + "whose estimate (the layouts left at the pace of its screening so far, plus the simulations, on the "
            + "engine's task slots) exceeds this, once a tenth of it has passed, with the estimate and the knobs to "
            + "narrow (default ${DEFAULT-VALUE}).")
    double maxMinutes;

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
        atLeast("--top", top, 1);
        atLeast("--simulate", simulateCount, 1);
        atLeast("--threads", engineOptions.threads, 1);
        atLeast("--nodes", nodes, 0);
        if (!(maxMinutes > 0) || Double.isInfinite(maxMinutes)) {
            throw usage("--max-minutes: found " + maxMinutes + ", expected minutes above 0");
        }
        if (!(price >= 0) || Double.isInfinite(price)) {
            throw usage("--price-per-gpu-hour: found " + price + ", expected dollars, 0 or more");
        }
        validateKnobs();
        BaseScenario scenario = BaseScenario.of(base, model, cluster, nodes, globalBatch, seq);
        DesignSpace knobs = space(scenario);
        // the targets are checked before the search, which can take minutes
        String stem = String.format(Locale.ROOT, "%s-%dgpus-gb%d-s%d", scenario.modelName(), scenario.gpus(),
                scenario.globalBatch(), scenario.seqLen());
        Path csv = out.resolve(stem + ".csv");
        Path json = out.resolve(stem + ".json");
        Path winner = out.resolve(stem + ".winner.yaml");
        Map<String, Path> targets = new LinkedHashMap<>();
        targets.put("--out (ranking)", csv);
        targets.put("--out (JSON)", json);
        targets.put("--out (winner)", winner);
        OutputFiles.check(targets);
        engineOptions.check();
        PlanSearch search = new PlanSearch(scenario, knobs, Math.max(top, simulateCount));
        PrintWriter err = spec.commandLine().getErr();
        long t0 = System.nanoTime();
        PlanSearch.Result result;
        String engineName;
        try (TaskEngine tasks = engineOptions.open("clustersim plan")) {
            engineName = tasks.describe();
            err.printf(Locale.ROOT, "plan: running on %s%n", engineName);
            err.flush();
            result = search.run(tasks, err, System.console() != null, maxMinutes * 60);
        }
        PlanReport report = new PlanReport(result, price);
        boolean ranked = !result.ranking().isEmpty();
        Map<Path, AtomicOutput.Content> files = new LinkedHashMap<>();
        files.put(csv, o -> o.write(report.csv().getBytes(StandardCharsets.UTF_8)));
        files.put(json, OutputFiles.json(report.json(ranked ? winner.toString() : null)));
        if (ranked) {
            Candidate w = result.winner();
            files.put(winner, o -> o.write(w.scenario().getBytes(StandardCharsets.UTF_8)));
        }
        OutputFiles.write(files);
        report.print(spec.commandLine().getOut(), top, ranked ? winner.toString() : "none");
        err.printf(Locale.ROOT, "plan: %.1f s on %s; wrote %s, %s%s%n", (System.nanoTime() - t0) / 1e9, engineName,
                csv, json, ranked ? ", " + winner : "");
        err.flush();
        return ranked ? 0 : ClusterSim.BAD_INPUT;
    }

    /** Each knob's values, checked before anything is read. */
    private void validateKnobs() {
        if (!List.of("wide", "narrow").contains(space)) {
            throw usage("--space " + space + ": expected wide or narrow");
        }
        Map<String, List<Integer>> sizes = new LinkedHashMap<>();
        sizes.put("--tp", tp);
        sizes.put("--pp", pp);
        sizes.put("--cp", cp);
        sizes.put("--ep", ep);
        sizes.put("--vp", vp);
        sizes.put("--mb", mb);
        for (var e : sizes.entrySet()) {
            if (e.getValue() != null && (e.getValue().isEmpty() || e.getValue().stream().anyMatch(v -> v < 1))) {
                throw usage(e.getKey() + " " + e.getValue() + ": expected positive sizes, comma-separated");
            }
        }
        boolean interleaved = schedule == null || schedule.contains("interleaved");
        if (vp != null && interleaved && vp.stream().allMatch(v -> v < 2)) {
            throw usage("--vp " + vp + ": expected at least one chunk count of 2 or more (the interleaved "
                    + "schedule's v)");
        }
        if (etp != null && etp.stream().anyMatch(v -> v < 0)) {
            throw usage("--etp " + etp + ": expected expert tensor-parallel sizes, or 0 for the base's");
        }
        if (zero != null && zero.stream().anyMatch(z -> z < 0 || z > 3)) {
            throw usage("--zero " + zero + ": expected stages 0 to 3");
        }
        if (offload != null && offload.stream().anyMatch(n -> n < 0)) {
            throw usage("--offload " + offload + ": expected layer counts, 0 for none");
        }
        if (bucketMb != null && bucketMb.stream().anyMatch(b -> !(b >= 0) || Double.isInfinite(b))) {
            throw usage("--bucket-mb " + bucketMb + ": expected sizes in MB, 0 for the base's");
        }
        oneOf("--recompute", recompute, List.of("none", "selective", "full"));
        oneOf("--schedule", schedule, java.util.Arrays.stream(ScheduleKind.values()).map(ScheduleKind::id).toList());
        oneOf("--cp-variant", cpVariant, List.of("all-gather", "ring", "base"));
        oneOf("--zero3-impl", zero3Impl, List.of("megatron-fsdp", "fsdp2", "deepspeed", "base"));
        oneOf("--param-gather", paramGather, List.of("off", "on"));
        oneOf("--tp-overlap", tpOverlap, List.of("off", "on"));
        if (recomputeModules != null) {
            for (String set : recomputeModules) {
                if (set.equals("base")) {
                    continue;
                }
                try {
                    if (set.isBlank()) {
                        throw new IllegalArgumentException("an empty set; expected names joined by '+', or base");
                    }
                    DesignSpace.canonicalModules(set);
                } catch (IllegalArgumentException e) {
                    throw usage("--recompute-modules " + set + ": " + e.getMessage());
                }
            }
        }
    }

    private void atLeast(String flag, int value, int least) {
        if (value < least) {
            throw usage(flag + ": found " + value + ", expected " + least + " or more");
        }
    }

    private void oneOf(String flag, List<String> given, List<String> allowed) {
        if (given == null) {
            return;
        }
        for (String v : given) {
            if (!allowed.contains(v)) {
                throw usage(flag + " " + v + ": expected one of " + String.join(", ", allowed));
            }
        }
    }

    /** The preset's lists for the base's model, each replaced by its option where given. */
    DesignSpace space(BaseScenario scenario) {
        DesignSpace.Model m = scenario.model();
        DesignSpace p = space.equals("narrow") ? DesignSpace.narrow(m)
                : DesignSpace.wide(m, scenario.layers(), scenario.seqLen());
        return new DesignSpace(or(schedule, p.schedule()), or(tp, p.tp()), or(pp, p.pp()), or(cp, p.cp()),
                or(base(cpVariant), p.cpVariant()), or(ep, p.ep()), or(etp, p.etp()), or(vp, p.vp()), or(mb, p.mb()),
                or(recompute, p.recompute()), or(base(recomputeModules), p.recomputeModules()), or(zero, p.zero()),
                or(base(zero3Impl), p.zero3Impl()), or(onOff(paramGather), p.overlapParamGather()),
                or(onOff(tpOverlap), p.tpOverlap()), or(bucketMb, p.bucketMB()), or(offload, p.offloadLayers()), m);
    }

    private static <T> List<T> or(List<T> given, List<T> preset) {
        return given == null ? preset : given;
    }

    /** "base" as the layout's neutral "" (the base's value). */
    private static List<String> base(List<String> given) {
        return given == null ? null : given.stream().map(v -> v.equals("base") ? "" : v).toList();
    }

    private static List<Boolean> onOff(List<String> given) {
        return given == null ? null : given.stream().map(v -> v.equals("on")).toList();
    }

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }
}
