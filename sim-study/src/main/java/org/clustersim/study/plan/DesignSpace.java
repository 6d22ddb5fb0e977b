package org.clustersim.study.plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import org.clustersim.strategies.cost.RecomputeModule;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.strategies.training.Zero3Impl;

/**
 * The values a plan may choose from, one list per knob, and their product as {@link Layout}s in
 * one fixed order: schedule, tp, pp, cp, CP variant, ep, etp, chunks, microbatch, recomputation,
 * recomputed modules, ZeRO, ZeRO-3 implementation, param-gather overlap, TP overlap, bucket size,
 * offloaded layers, each in the order given.
 *
 * <p>A knob that depends on another applies only where that one allows it (the CP variant with
 * cp > 1, etp with experts, the modules under selective recomputation, the ZeRO-3 implementation
 * with ZeRO 3, the param-gather overlap with ZeRO 1 or 2, the TP overlap with tp > 1, buckets with
 * a data-parallel reduction below ZeRO 3, offload with pp 1 and no recomputation). Where it applies every
 * listed value is formed; where it does not, the layout leaves the field to the base (its neutral
 * value: 0, "" or false) once, and each other listed value is dropped as meaningless. Values whose
 * effect is the same (a module list in another order; a neutral value beside the default it
 * stands for: "" and megatron-fsdp, etp 0 and tp, modules "" and core_attn) are formed once. At
 * pp 1 one stage runs every schedule alike, so only 1F1B (or the first listed) is kept. Layouts
 * that cannot be formed are dropped too: tp x pp x cp not dividing the GPUs, a global batch the
 * data-parallel microbatches do not divide, more pipeline stages than layers, expert parallelism
 * or module names the model has no use for, expert sizes that do not fold, ZeRO 3 with experts
 * apart or (DeepSpeed) with pipeline stages, offload of a whole stage.
 *
 * <p>Each drop is counted once by reason, at the first knob that rules it out, for the choices
 * made before it (the knobs after it are not multiplied in). Chunk counts apply to the interleaved
 * schedule only (the V shapes always run 2, the others 1; values under 2 are ignored). Whatever
 * else is wrong with a layout the scenario reader finds, as it does for a file.
 *
 * @param schedule           schedule ids
 * @param tp                 tensor-parallel sizes
 * @param pp                 pipeline-parallel sizes
 * @param cp                 context-parallel sizes
 * @param cpVariant          with cp > 1, how keys and values are shared (all-gather, ring; "" the base's)
 * @param ep                 expert-parallel sizes (above 1 for models with experts only)
 * @param etp                expert tensor-parallel sizes for models with experts (0: the base's, tp by default)
 * @param vp                 chunk counts for the interleaved schedule
 * @param mb                 microbatch sizes
 * @param recompute          recomputation policies (none, selective, full)
 * @param recomputeModules   under selective recomputation, module sets joined by '+' ("" the base's)
 * @param zero               ZeRO stages
 * @param zero3Impl          with ZeRO 3, the frameworks (megatron-fsdp, fsdp2, deepspeed; "" the base's)
 * @param overlapParamGather with ZeRO 1 or 2, the weight-gather overlap off or on
 * @param tpOverlap          with tp > 1, the TP communication overlap off or on
 * @param bucketMB           gradient bucket sizes in MB (0: the base's, Megatron-core's rule by default)
 * @param offloadLayers      with pp 1 and no recomputation, layers whose activations go to the host
 * @param model              what the model has, deciding which knobs mean anything
 */
public record DesignSpace(List<String> schedule, List<Integer> tp, List<Integer> pp, List<Integer> cp,
                          List<String> cpVariant, List<Integer> ep, List<Integer> etp, List<Integer> vp,
                          List<Integer> mb, List<String> recompute, List<String> recomputeModules,
                          List<Integer> zero, List<String> zero3Impl, List<Boolean> overlapParamGather,
                          List<Boolean> tpOverlap, List<Double> bucketMB, List<Integer> offloadLayers, Model model) {

    /**
     * What a model has that the knobs depend on.
     *
     * @param experts        routed experts per MoE layer (0: a dense model; -1: not stated, no model rule applies)
     * @param sharedExperts  whether it has shared experts
     * @param latent         whether its attention is latent (multi-head latent attention)
     * @param parallelBlocks whether attention and MLP sit side by side (no TP overlap is modelled for them)
     */
    public record Model(int experts, boolean sharedExperts, boolean latent, boolean parallelBlocks) {
        /** A model nothing is known of: no knob is dropped for it. */
        public static final Model UNSTATED = new Model(-1, true, true, false);
        /** A dense model with standard attention and serial blocks. */
        public static final Model DENSE = new Model(0, false, false, false);

        boolean moe() {
            return experts != 0;
        }
    }

    /** A space with the original nine knobs; every other option left to the base, the model unstated. */
    public DesignSpace(List<Integer> tp, List<Integer> pp, List<Integer> cp, List<Integer> ep, List<Integer> vp,
                       List<Integer> mb, List<String> recompute, List<Integer> zero, List<String> schedule) {
        this(schedule, tp, pp, cp, List.of(""), ep, List.of(0), vp, mb, recompute, List.of(""), zero, List.of(""),
                List.of(false), List.of(false), List.of(0.0), List.of(0), Model.UNSTATED);
    }

    public DesignSpace {
        for (List<?> l : List.of(schedule, tp, pp, cp, cpVariant, ep, etp, vp, mb, recompute, recomputeModules, zero,
                zero3Impl, overlapParamGather, tpOverlap, bucketMB, offloadLayers)) {
            if (l.isEmpty()) {
                throw new IllegalArgumentException("every knob needs at least one value");
            }
        }
        schedule.forEach(DesignSpace::kind);
        Objects.requireNonNull(model);
        // each value once, in the order first given; module sets in Megatron-core's spelling
        schedule = distinct(schedule);
        tp = distinct(tp);
        pp = distinct(pp);
        cp = distinct(cp);
        cpVariant = distinct(cpVariant);
        ep = distinct(ep);
        etp = distinct(etp);
        vp = distinct(vp);
        mb = distinct(mb);
        recompute = distinct(recompute);
        recomputeModules = distinct(recomputeModules.stream().map(DesignSpace::canonicalModules).toList());
        zero = distinct(zero);
        zero3Impl = distinct(zero3Impl);
        overlapParamGather = distinct(overlapParamGather);
        tpOverlap = distinct(tpOverlap);
        bucketMB = distinct(bucketMB);
        offloadLayers = distinct(offloadLayers);
    }

    /**
     * Megatron-core's default gradient bucket (its rule: at least 40 M parameters, 160 MB of fp32
     * main gradients) and a quarter of it, for finer overlap, in MB.
     */
    static final List<Double> WIDE_BUCKETS = List.of(0.0, 40.0);
    /** The fewest tokens of a sequence the wide space leaves each context-parallel rank. */
    static final int MIN_TOKENS_PER_CP_RANK = 1024;

    /**
     * Before issue 33: tp 1, 2, 4, 8; pp 1, 2, 4, 8; cp 1, 2; ep 1; v 2; microbatch 1, 2; selective
     * and full recomputation; ZeRO 1; 1F1B and interleaved; every other option the base's.
     */
    public static DesignSpace narrow(Model model) {
        return new DesignSpace(List.of("1f1b", "interleaved"), List.of(1, 2, 4, 8), List.of(1, 2, 4, 8),
                List.of(1, 2), List.of(""), List.of(1), List.of(0), List.of(2), List.of(1, 2),
                List.of("selective", "full"), List.of(""), List.of(1), List.of(""), List.of(false), List.of(false),
                List.of(0.0), List.of(0), model);
    }

    /**
     * The whole space for a model of {@code layers} layers and sequences of {@code seqLen} tokens:
     * every schedule; tp 1 to 8; pp 1 to 64; cp 1, 2, 4, all-gathered or ring, as far as each
     * rank keeps {@link #MIN_TOKENS_PER_CP_RANK} tokens; for models with experts ep 1 to 64
     * (dividing the experts) and etp as tp (Megatron-core's default) or 1; v 2, 4; microbatch 1 to
     * 8; no, selective or full recomputation with the module sets that mean something for the
     * model; ZeRO 0 to 3 with each ZeRO-3 framework;
     * param-gather and TP overlap off and on; buckets {@link #WIDE_BUCKETS}; offload of none, a
     * quarter, half or three quarters of the layers.
     */
    public static DesignSpace wide(Model model, int layers, int seqLen) {
        List<Integer> cp = new ArrayList<>(List.of(1));
        for (int c = 2; c <= 4 && seqLen / c >= MIN_TOKENS_PER_CP_RANK; c *= 2) {
            cp.add(c);
        }
        List<Integer> ep = new ArrayList<>(List.of(1));
        if (model.experts() > 0) {
            for (int e = 2; e <= Math.min(64, model.experts()); e *= 2) {
                if (model.experts() % e == 0) {
                    ep.add(e);
                }
            }
        }
        Set<Integer> offload = new LinkedHashSet<>(List.of(0));
        for (int q = 1; q <= 3; q++) {
            int n = layers * q / 4;
            if (n > 0 && n < layers) {
                offload.add(n);
            }
        }
        return new DesignSpace(Arrays.stream(ScheduleKind.values()).map(ScheduleKind::id).toList(),
                List.of(1, 2, 4, 8), List.of(1, 2, 4, 8, 16, 32, 64), List.copyOf(cp), List.of("all-gather", "ring"),
                ep, model.moe() ? List.of(0, 1) : List.of(0), List.of(2, 4),
                List.of(1, 2, 4, 8), List.of("none", "selective", "full"), moduleSets(model), List.of(0, 1, 2, 3),
                List.of(Zero3Impl.MEGATRON_FSDP.id(), Zero3Impl.FSDP2.id(), Zero3Impl.DEEPSPEED.id()),
                List.of(false, true), List.of(false, true), WIDE_BUCKETS, List.copyOf(offload), model);
    }

    /**
     * The module sets worth trying for a model: the base's (the attention core), with the layer
     * norms; for a dense model also the MLP with and without them; for experts the routed experts'
     * activation and the shared experts (when there are some) with the norms; for latent attention
     * its up-projections with the norms, and with the experts' modules too.
     */
    static List<String> moduleSets(Model model) {
        List<String> out = new ArrayList<>(List.of("", "core_attn+layernorm"));
        if (!model.moe() || model.experts() < 0) {
            out.add("core_attn+mlp");
            out.add("core_attn+mlp+layernorm");
        }
        String experts = model.moe() ? "+moe_act" + (model.sharedExperts() ? "+shared_experts" : "") : "";
        if (model.moe()) {
            out.add("core_attn" + experts + "+layernorm");
        }
        if (model.latent()) {
            out.add("core_attn+mla_up_proj+layernorm");
            if (model.moe()) {
                out.add("core_attn+mla_up_proj" + experts + "+layernorm");
            }
        }
        return List.copyOf(out);
    }

    /**
     * A module set in Megatron-core's names as the layout writes it: each once, in
     * {@link RecomputeModule}'s order, joined by '+'; "" stays "".
     *
     * @throws IllegalArgumentException for an unknown or unsupported name, or one named twice
     */
    public static String canonicalModules(String set) {
        if (set.isEmpty()) {
            return "";
        }
        Set<RecomputeModule> modules = java.util.EnumSet.noneOf(RecomputeModule.class);
        for (String name : set.split("\\+", -1)) {
            RecomputeModule m = RecomputeModule.byId(name.strip()).filter(RecomputeModule::supported)
                    .orElseThrow(() -> new IllegalArgumentException("'" + name + "' is not a module the simulator "
                            + "recomputes; expected " + Arrays.stream(RecomputeModule.values())
                            .filter(RecomputeModule::supported).map(RecomputeModule::id)
                            .collect(Collectors.joining(", "))));
            if (!modules.add(m)) {
                throw new IllegalArgumentException("'" + name + "' named twice in '" + set + "'");
            }
        }
        return modules.stream().map(RecomputeModule::id).collect(Collectors.joining("+"));
    }

    /** Layouts and what was left out. */
    public record Enumeration(List<Layout> layouts, Map<String, Integer> dropped) {
    }

    /** Every layout of this space on {@code gpus} GPUs for a model of {@code layers} layers (0: unknown). */
    public Enumeration enumerate(int gpus, int globalBatch, int layers) {
        Walk w = new Walk(gpus, globalBatch, layers);
        w.schedule();
        return new Enumeration(w.out, w.dropped);
    }

    /** The schedule with id {@code id}. */
    static ScheduleKind kind(String id) {
        for (ScheduleKind k : ScheduleKind.values()) {
            if (k.id().equals(id)) {
                return k;
            }
        }
        throw new IllegalArgumentException("unknown schedule " + id);
    }

    /** The depth-first walk over the knobs in order, one field of the layout being formed per level. */
    private final class Walk {
        final int gpus;
        final int globalBatch;
        final int layers;
        final List<Layout> out = new ArrayList<>();
        final Map<String, Integer> dropped = new TreeMap<>();
        final String onePipeSchedule = DesignSpace.this.schedule.contains("1f1b") ? "1f1b"
                : DesignSpace.this.schedule.get(0);
        String s;
        int t;
        int p;
        int c;
        int dp;
        String cpv;
        int e;
        int et;
        int v;
        int m;
        String r;
        String mods;
        int z;
        String impl;
        boolean gather;
        boolean tpo;
        double bucket;

        Walk(int gpus, int globalBatch, int layers) {
            this.gpus = gpus;
            this.globalBatch = globalBatch;
            this.layers = layers;
        }

        void drop(String why) {
            dropped.merge(why, 1, Integer::sum);
        }

        void schedule() {
            for (String x : DesignSpace.this.schedule) {
                s = x;
                tp();
            }
        }

        void tp() {
            for (int x : DesignSpace.this.tp) {
                t = x;
                pp();
            }
        }

        void pp() {
            for (int x : DesignSpace.this.pp) {
                p = x;
                if (p == 1 && !s.equals(onePipeSchedule)) {
                    drop("pp 1 runs every schedule alike (" + onePipeSchedule + " kept)");
                    continue;
                }
                cp();
            }
        }

        void cp() {
            for (int x : DesignSpace.this.cp) {
                c = x;
                long model = (long) t * p * c;
                if (gpus % model != 0) {
                    drop("tp x pp x cp does not divide the " + gpus + " GPUs");
                    continue;
                }
                dp = (int) (gpus / model);
                cpVariant();
            }
        }

        void cpVariant() {
            for (String x : options(DesignSpace.this.cpVariant, c > 1, "", "cpVariant with cp 1",
                    y -> y.isEmpty() ? "all-gather" : y)) {
                cpv = x;
                ep();
            }
        }

        void ep() {
            for (int x : DesignSpace.this.ep) {
                e = x;
                if (e > 1 && model.experts() == 0) {
                    drop("ep > 1 without experts");
                    continue;
                }
                if (model.experts() > 0 && model.experts() % e != 0) {
                    drop("ep does not divide the experts");
                    continue;
                }
                etp();
            }
        }

        void etp() {
            for (int x : options(DesignSpace.this.etp, model.moe(), 0, "etp without experts", y -> y == 0 ? t : y)) {
                et = x;
                int expertTp = et == 0 ? t : et;
                if ((t * c) % expertTp != 0) {
                    drop("etp does not divide tp x cp");
                    continue;
                }
                if (((long) t * c * dp) % ((long) expertTp * e) != 0) {
                    drop("etp x ep does not divide a stage's GPUs");
                    continue;
                }
                vp();
            }
        }

        void vp() {
            ScheduleKind kind = kind(s);
            List<Integer> chunks = kind.takesChunks() ? DesignSpace.this.vp.stream().filter(y -> y >= 2)
                    .toList() : List.of(Math.max(1, kind.fixedChunks()));
            for (int x : chunks) {
                v = x;
                if (layers > 0 && p * v > layers) {
                    drop("more pipeline stages than layers");
                    continue;
                }
                mb();
            }
        }

        void mb() {
            for (int x : DesignSpace.this.mb) {
                m = x;
                if (globalBatch % ((long) m * dp) != 0) {
                    drop("microbatch x dp does not divide the global batch");
                    continue;
                }
                recompute();
            }
        }

        void recompute() {
            for (String x : DesignSpace.this.recompute) {
                r = x;
                modules();
            }
        }

        void modules() {
            for (String x : options(DesignSpace.this.recomputeModules, r.equals("selective"), "",
                    "recomputeModules without selective recomputation", y -> y.isEmpty() ? "core_attn" : y)) {
                mods = x;
                if (!model.moe() && (x.contains("moe_act") || x.contains("shared_experts"))
                        || model.experts() > 0 && !model.sharedExperts() && x.contains("shared_experts")) {
                    drop("recomputeModules names experts the model lacks");
                    continue;
                }
                if (!model.latent() && x.contains("mla_up_proj")) {
                    drop("recomputeModules names mla_up_proj without latent attention");
                    continue;
                }
                zero();
            }
        }

        void zero() {
            for (int x : DesignSpace.this.zero) {
                z = x;
                if (z == 3 && (e > 1 || et != 0 && et != t)) {
                    drop("ZeRO 3 with experts apart (ep > 1 or etp != tp)");
                    continue;
                }
                zero3Impl();
            }
        }

        void zero3Impl() {
            for (String x : options(DesignSpace.this.zero3Impl, z == 3, "", "zero3Impl without ZeRO 3",
                    y -> y.isEmpty() ? Zero3Impl.DEFAULT.id() : y)) {
                impl = x;
                if (z == 3 && x.equals(Zero3Impl.DEEPSPEED.id()) && (p > 1 || v > 1)) {
                    drop("deepspeed ZeRO 3 with pipeline stages or chunks");
                    continue;
                }
                paramGather();
            }
        }

        void paramGather() {
            for (boolean x : options(DesignSpace.this.overlapParamGather, z == 1 || z == 2, false,
                    "overlapParamGather without ZeRO 1 or 2", y -> y)) {
                gather = x;
                tpOverlap();
            }
        }

        void tpOverlap() {
            String why = t == 1 ? "tp-overlap with tp 1" : "tp-overlap with parallel blocks";
            for (boolean x : options(DesignSpace.this.tpOverlap, t > 1 && !model.parallelBlocks(), false, why,
                    y -> y)) {
                tpo = x;
                bucket();
            }
        }

        void bucket() {
            // ZeRO 3's frameworks reduce-scatter each layer's gradients as the layer finishes: the
            // buckets cut only what lies outside the layers
            String why = z == 3 ? "bucketMB with ZeRO 3 (gradients reduced layer by layer)"
                    : "bucketMB without data-parallel reduction (dp x cp = 1)";
            for (double x : options(DesignSpace.this.bucketMB, (long) dp * c > 1 && z != 3, 0.0, why, y -> y)) {
                bucket = x;
                offload();
            }
        }

        void offload() {
            boolean applies = p == 1 && r.equals("none");
            String why = p > 1 ? "offload with pp > 1" : "offload under recomputation";
            for (int x : options(DesignSpace.this.offloadLayers, applies, 0, why, y -> y)) {
                // with one pipeline rank each of its v chunks holds at least layers / v layers
                if (x > 0 && layers > 0 && x >= layers / v) {
                    drop("offload of a whole stage's layers");
                    continue;
                }
                out.add(new Layout(t, p, c, e, et, v, dp, m, r, mods, z, impl, s, cpv, tpo, gather, bucket, x));
            }
        }

        /**
         * A knob's values: where it applies, the listed ones, each effect once (equal under
         * {@code effect}); where it does not, the neutral value, the others dropped as {@code why}.
         */
        <T> List<T> options(List<T> listed, boolean applies, T neutral, String why,
                            java.util.function.Function<T, Object> effect) {
            if (!applies) {
                for (T x : listed) {
                    if (!x.equals(neutral)) {
                        drop(why);
                    }
                }
                return List.of(neutral);
            }
            List<T> kept = new ArrayList<>();
            Set<Object> seen = new java.util.HashSet<>();
            for (T x : listed) {
                if (seen.add(effect.apply(x))) {
                    kept.add(x);
                } else {
                    drop("same effect as an earlier value (a default given twice)");
                }
            }
            return kept;
        }
    }

    private static <T> List<T> distinct(List<T> l) {
        return List.copyOf(new LinkedHashSet<>(l));
    }
}
