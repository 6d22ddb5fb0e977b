package org.clustersim.cli.scenario;

import org.clustersim.core.input.Diagnostics;
import org.clustersim.core.input.InputFileException;
import org.clustersim.core.input.Section;
import org.clustersim.core.input.SourceNode;
import org.clustersim.core.input.SourceTreeReader;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Set;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.clustersim.strategies.training.AllToAllAlgorithm;
import org.clustersim.strategies.training.ContextParallel;
import org.clustersim.strategies.training.Mesh;
import org.clustersim.strategies.training.ShardingOptions;
import org.clustersim.strategies.training.Zero3Impl;
import org.clustersim.strategies.training.TrainingStep;
import org.clustersim.strategies.cost.Fp8Recipe;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.cost.RecomputeModule;
import org.clustersim.strategies.device.AttentionImpl;
import org.clustersim.strategies.device.DeviceProfile;
import org.clustersim.strategies.device.DeviceProfileReader;
import org.clustersim.strategies.device.DeviceProfiles;
import org.clustersim.strategies.model.AttentionShape;
import org.clustersim.strategies.model.LatentAttention;
import org.clustersim.strategies.model.PositionEmbedding;
import org.clustersim.strategies.model.SlidingWindow;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.core.Simulation;
import org.clustersim.topology.AcceleratorSpec;
import org.clustersim.topology.ClusterSpec;
import org.clustersim.topology.FatTreeSpec;
import org.clustersim.topology.SuperPodSpec;
import org.clustersim.topology.SwitchedClusterSpec;

/**
 * Reads and validates a scenario file into a {@link Scenario}. All errors of a file are
 * collected and thrown together as one {@link InputFileException}; each names the file, line,
 * column and field path, what was found and what was expected. The accepted format is
 * documented in docs/scenario-format.md.
 */
public final class ScenarioReader {
    private static final int MAX_COUNT = 1 << 24;
    /** Consecutive steps one run may simulate: enough to reach any schedule's steady state. */
    private static final int MAX_STEPS = 1000;
    private static final Map<String, String> FABRICS = names("single-switch", "rail-optimized", "fat-tree",
            "torus-2d", "torus-3d", "nvl72");

    private final SourceTreeReader treeReader = new SourceTreeReader();

    /**
     * Reads a file.
     *
     * @throws InputFileException listing every problem found
     */
    public Scenario read(Path file) {
        return read(file, treeReader.read(file));
    }

    /**
     * Reads a scenario held in memory as if it were the content of {@code file} (errors name that
     * file; relative paths in it resolve against its folder).
     *
     * @throws InputFileException listing every problem found
     */
    public Scenario readText(Path file, String text) {
        return read(file, treeReader.readText(file, text));
    }

    private Scenario read(Path file, SourceNode tree) {
        Diagnostics d = new Diagnostics(file);
        Section root = Section.root(d, tree);

        String name = root.text("name").orElseGet(() -> stem(file));
        Section clusterSec = root.section("cluster");
        Section modelSec = root.section("model");
        Section parSec = root.section("parallelism");
        Section schedSec = root.section("schedule");
        Section trainSec = root.section("training");
        Section netSec = root.section("network");
        List<Fault> faults = faults(root, root.list("faults"), d);
        Section outSec = root.section("output");
        Section simSec = root.section("simulation");
        boolean allReplicas = simSec.choice("replicas", Boolean.TRUE, Map.of("all", Boolean.TRUE, "one", Boolean.FALSE));
        boolean allowOom = simSec.bool("allowOom", false);
        boolean interference = simSec.bool("interference", true);
        int steps = simSec.integer("steps", 1, 1, MAX_STEPS);

        Scenario.Parallelism declared = parallelism(parSec, schedSec);
        ScheduleKind schedule = schedule(schedSec);
        boolean blockingSends = schedSec.choice("p2p", Boolean.FALSE, Map.of("async", Boolean.FALSE, "blocking",
                Boolean.TRUE));
        int chunks = chunks(parSec, schedSec, schedule, declared.vp());
        Scenario.Training training = training(trainSec);
        long bucket = parSec.has("gradBucketMB") ? declared.gradBucketBytes()
                : TrainingStep.defaultBucketBytes(declared.dp() * declared.cp(), training.mainGradBytes());
        Scenario.Parallelism par = new Scenario.Parallelism(declared.tp(), declared.pp(), declared.dp(), declared.cp(),
                declared.ep(), declared.etp(), chunks, declared.zero(), declared.sequenceParallel(),
                declared.overlapGradReduce(), bucket, declared.layersPerStage(), declared.shardGroup(),
                declared.cpVariant(), declared.order(), declared.sharding(), declared.tpCommOverlap(),
                declared.overlapParamGather(), declared.overlapMoeExpertParallelComm(), declared.allToAll());
        Optional<TransformerModel> model = model(modelSec);
        Optional<ClusterChoice> cluster = cluster(clusterSec, par, file);
        AttentionImpl attention = attention(modelSec, cluster.map(ClusterChoice::device));
        Simulation.Fidelity fidelity = netSec.choice("fidelity", Simulation.Fidelity.FLOW,
                Map.of("analytical", Simulation.Fidelity.ANALYTICAL, "flow", Simulation.Fidelity.FLOW));
        Simulation.Routing routing = netSec.choice("routing", Simulation.Routing.ECMP,
                Map.of("ecmp", Simulation.Routing.ECMP, "adaptive", Simulation.Routing.ADAPTIVE));
        Scenario.Output output = new Scenario.Output(outSec.text("trace"), outSec.text("summary"),
                outSec.bool("linkCounters", false));

        for (Section s : List.of(clusterSec, modelSec, parSec, schedSec, trainSec, netSec, outSec, simSec, root)) {
            s.finish();
        }
        if (!d.hasErrors()) {
            crossCheck(clusterSec, parSec, schedSec, trainSec, cluster.orElseThrow().spec(), model.orElseThrow(), par,
                    schedule, training);
        }
        d.throwIfAny();
        ClusterChoice chosen = cluster.orElseThrow();
        return new Scenario(name, file, chosen.spec(), chosen.device(), model.orElseThrow(), attention, blockingSends,
                par, schedule, training, fidelity, routing, faults, allReplicas, allowOom, interference, steps,
                output);
    }

    /**
     * The experts of a pipeline stage fold over its tp x cp x dp GPUs as etp x ep x edp
     * (Megatron-core's MoE parallel folding): etp x ep must divide tp x cp x dp, and an expert TP
     * group must lie inside one pipeline rank (etp dividing tp x cp).
     */
    private static void expertFold(Section s, int tp, int cp, int dp, int ep, int etp) {
        int stage = tp * cp * dp;
        if (stage % etp != 0 || (tp * cp) % etp != 0) {
            s.error("etp", "found " + etp + "; expected a divisor of tp x cp (" + tp * cp + "): an expert TP group "
                    + "reaching into other data-parallel replicas is not supported yet");
        } else if (stage % (etp * ep) != 0) {
            String why = etp == tp && cp == 1 ? "expected a divisor of parallelism.dp (" + dp + "): with etp = tp the "
                    + "experts fold over the data-parallel replicas"
                    : "expected etp x ep = " + etp * ep + " to divide a pipeline stage's tp x cp x dp = " + stage
                    + " GPUs, which the experts fold over as etp x ep x edp";
            s.error("ep", "found " + ep + ", " + why);
        }
    }

    private static Scenario.Parallelism parallelism(Section s, Section schedule) {
        int tp = s.integer("tp", 1, 1, 1024);
        int pp = s.integer("pp", 1, 1, 4096);
        int dp = s.integer("dp", 1, 1, MAX_COUNT);
        int cp = s.integer("cp", 1, 1, 1024);
        int ep = s.integer("ep", 1, 1, 4096);
        // Megatron-core: expert_tensor_parallel_size defaults to tensor_model_parallel_size
        int etp = s.integer("etp", tp, 1, 1024);
        int vp = s.integer("vp", 1, 1, 64);
        int v = schedule.integer("v", vp, 1, 64);
        int zero = s.integer("zero", 0, 0, 3);
        boolean sp = s.bool("sequenceParallel", false);
        boolean overlap = s.bool("overlapGradReduce", true);
        boolean tpCommOverlap = s.bool("tpCommOverlap", false);
        if (tpCommOverlap && tp > 1 && !sp) {
            s.error("tpCommOverlap", "found true without sequenceParallel: Megatron-core overlaps the sequence-parallel "
                    + "all-gathers and reduce-scatters; set parallelism.sequenceParallel: true");
        }
        boolean overlapParamGather = s.bool("overlapParamGather", false);
        boolean a2aOverlap = s.bool("overlapMoeExpertParallelComm", false);
        AllToAllAlgorithm allToAll = s.choice("allToAll", AllToAllAlgorithm.AUTO, AllToAllAlgorithm.byId());
        double bucketMb = s.optionalNumber("gradBucketMB", 0.001, 1e6).orElse(TrainingStep.DEFAULT_BUCKET / 1e6);
        int[] layersPerStage = s.integerList("layersPerStage", 1, 100_000).orElse(null);
        int shardGroup = s.integer("shardGroup", 0, 1, MAX_COUNT);
        ContextParallel cpVariant = s.choice("cpVariant", ContextParallel.ALL_GATHER,
                Map.of("all-gather", ContextParallel.ALL_GATHER, "ring", ContextParallel.RING));
        List<Mesh.Dim> order = Mesh.DEFAULT_ORDER;
        Optional<String> orderText = s.text("order");
        if (orderText.isPresent()) {
            try {
                order = Mesh.parseOrder(orderText.get());
            } catch (IllegalArgumentException e) {
                s.error("order", "found '" + orderText.get() + "': " + e.getMessage()
                        + " (innermost first, for example tp-cp-pp-dp)");
            }
        }
        expertFold(s, tp, cp, dp, ep, etp);
        if ((ep > 1 || etp != tp) && zero == 3) {
            s.error(ep > 1 ? "ep" : "etp", "found " + (ep > 1 ? ep : etp) + " with zero: 3; sharding expert weights "
                    + "FSDP-style is not modelled: use zero 0, 1 or 2 with expert parallelism");
        }
        if (s.has("shardGroup") && (zero == 0 || (dp * cp) % shardGroup != 0)) {
            s.error("shardGroup", "found " + shardGroup + ", expected a divisor of dp x cp (" + dp * cp
                    + ") with zero 1, 2 or 3: hybrid sharding shards inside groups of that many ranks");
        }
        if (overlapParamGather && zero != 1 && zero != 2) {
            s.error("overlapParamGather", "found true with zero: " + zero + "; expected zero: 1 or 2: the updated "
                    + "weights are all-gathered only under the distributed optimizer (Megatron-core's "
                    + "--overlap-param-gather needs --use-distributed-optimizer)");
        }
        if (overlapParamGather && !overlap) {
            s.error("overlapParamGather", "found true with overlapGradReduce: false; expected overlapGradReduce: true "
                    + "(Megatron-core's --overlap-param-gather needs --overlap-grad-reduce)");
        }
        if (vp != 1 && schedule.has("v") && v != vp) {
            schedule.error("v", "found " + v + ", but parallelism.vp is " + vp + "; give one of them");
        }
        if (a2aOverlap && ep == 1) {
            s.error("overlapMoeExpertParallelComm", "found true with ep: 1; expected ep > 1: Megatron-core overlaps "
                    + "the expert-parallel all-to-all only under expert parallelism");
        }
        ShardingOptions sharding = sharding(s, zero, pp, v);
        return new Scenario.Parallelism(tp, pp, dp, cp, ep, etp, v, zero, sp, overlap, Math.round(bucketMb * 1e6),
                layersPerStage, s.has("shardGroup") ? shardGroup : 0, cpVariant, order, sharding, tpCommOverlap,
                overlapParamGather, a2aOverlap, allToAll);
    }

    /**
     * ZeRO 3's framework and options: {@code zero3Impl}, {@code reshardAfterForward} (fsdp2 only)
     * and {@code gradReduceDtype}, each an error below ZeRO 3.
     */
    private static ShardingOptions sharding(Section s, int zero, int pp, int v) {
        Zero3Impl impl = s.choice("zero3Impl", Zero3Impl.DEFAULT, Zero3Impl.byId());
        boolean reshard = s.bool("reshardAfterForward", true);
        int reduceBytes = s.choice("gradReduceDtype", 0, Map.of("fp32", 4, "bf16", 2, "fp16", 2));
        boolean ok = true;
        for (String key : List.of("zero3Impl", "reshardAfterForward", "gradReduceDtype")) {
            if (s.has(key) && zero != 3) {
                s.error(key, "given with zero: " + zero + "; expected zero: 3, the only stage that gathers weights "
                        + "layer by layer");
                ok = false;
            }
        }
        if (s.has("reshardAfterForward") && impl != Zero3Impl.FSDP2 && zero == 3) {
            s.error("reshardAfterForward", "found " + reshard + " with zero3Impl: " + impl.id() + "; only fsdp2 has "
                    + "reshard_after_forward (Megatron-FSDP always reshards; DeepSpeed keeps what its "
                    + "stage3_max_reuse_distance says)");
            ok = false;
        }
        if (impl == Zero3Impl.DEEPSPEED && zero == 3 && (pp > 1 || v > 1)) {
            s.error("zero3Impl", "found deepspeed with " + (pp > 1 ? "pp: " + pp : v + " model chunks per rank")
                    + "; DeepSpeed's pipeline engine runs ZeRO 0 or 1 only: expected pp: 1 and one chunk");
            ok = false;
        }
        if (!ok || zero != 3) {
            return ShardingOptions.defaults();
        }
        return new ShardingOptions(impl, reshard, reduceBytes, ShardingOptions.DeepSpeedConfig.DEFAULTS);
    }

    private static ScheduleKind schedule(Section s) {
        Map<String, ScheduleKind> kinds = new LinkedHashMap<>();
        for (ScheduleKind k : ScheduleKind.values()) {
            kinds.put(k.id(), k);
        }
        return s.choice("kind", ScheduleKind.ONE_F_ONE_B, kinds);
    }

    /**
     * The chunk count the schedule runs with: v >= 2 for interleaved, 2 for the V shapes, 1
     * otherwise. Reports a v that does not fit the schedule.
     */
    private static int chunks(Section parSec, Section schedSec, ScheduleKind kind, int v) {
        Section where = schedSec.has("v") ? schedSec : parSec;
        String key = schedSec.has("v") ? "v" : "vp";
        if (kind.takesChunks()) {
            if (v < 2) {
                where.error(key, "found " + v + ", but the interleaved schedule needs v >= 2 model chunks per rank"
                        + " (schedule.v)");
            }
            return v;
        }
        if (v != 1 && v != kind.fixedChunks()) {
            where.error(key, "found " + v + ", but " + kind.id() + (kind.fixedChunks() == 2
                    ? " always places 2 chunks per rank in a V; leave v out or use 2"
                    : " runs one chunk per rank; leave v out or use 1 (interleaved takes v)"));
        }
        return kind.fixedChunks();
    }

    private static Optional<TransformerModel> model(Section s) {
        TransformerModel p = s.choice("preset", null, TransformerModel.presets());
        // An unknown preset was reported already; read the other fields without demanding them.
        boolean badPreset = p == null && s.has("preset");
        Optional<TransformerModel> preset = Optional.ofNullable(p);
        String name = s.text("name").orElse(preset.map(TransformerModel::name).orElse("custom"));
        Optional<Integer> layers = dim(s, "layers", badPreset, preset.map(TransformerModel::layers));
        Optional<Integer> hidden = dim(s, "hidden", badPreset, preset.map(TransformerModel::hidden));
        Optional<Integer> heads = dim(s, "heads", badPreset, preset.map(TransformerModel::heads));
        Optional<Integer> ffn = s.optionalInteger("ffn", 1, Integer.MAX_VALUE)
                .or(() -> preset.map(TransformerModel::ffn)).or(() -> hidden.map(h -> 4 * h));
        Optional<Integer> vocab = dim(s, "vocab", badPreset, preset.map(TransformerModel::vocab));
        Optional<Integer> kvHeads = s.optionalInteger("kvHeads", 1, 1 << 16)
                .or(() -> preset.map(TransformerModel::kvHeads)).or(() -> heads);
        TransformerModel.FfnKind ffnKind = s.choice("ffnKind", preset.map(TransformerModel::ffnKind)
                .orElse(TransformerModel.FfnKind.GELU), Map.of("gelu", TransformerModel.FfnKind.GELU, "swiglu",
                TransformerModel.FfnKind.SWIGLU));
        boolean tied = s.bool("tiedEmbeddings", preset.map(TransformerModel::tiedEmbeddings).orElse(false));
        TransformerModel.Experts experts = experts(s, preset.map(TransformerModel::experts).orElse(null),
                layers.orElse(0), ffn.orElse(1));
        Optional<AttentionFields> shape = attentionFields(s, preset, layers.orElse(0));
        if (badPreset || layers.isEmpty() || hidden.isEmpty() || heads.isEmpty() || ffn.isEmpty() || vocab.isEmpty()
                || shape.isEmpty()) {
            return Optional.empty();
        }
        AttentionFields a = shape.get();
        int headDim;
        if (a.latent() != null) {
            headDim = a.latent().qkHeadDim();
            if (s.has("kvHeads") && !kvHeads.equals(heads)) {
                s.error("kvHeads", "found " + kvHeads.orElse(0) + ", but latent attention expands keys and values "
                        + "for every head: expected model.heads (" + heads.get() + ") or leave it out");
                return Optional.empty();
            }
            kvHeads = heads;
        } else if (a.headDim().isPresent()) {
            headDim = a.headDim().get();
        } else if (hidden.get() % heads.get() != 0) {
            s.error("heads", "found " + heads.get() + ", expected a divisor of model.hidden (" + hidden.get()
                    + "), or give model.headDim");
            return Optional.empty();
        } else {
            headDim = hidden.get() / heads.get();
        }
        if (kvHeads.isEmpty() || heads.get() % kvHeads.get() != 0) {
            s.error("kvHeads", "found " + kvHeads.orElse(0) + ", expected a divisor of model.heads (" + heads.get()
                    + ")");
            return Optional.empty();
        }
        return Optional.of(new TransformerModel(name, layers.get(), hidden.get(), heads.get(), kvHeads.get(),
                ffn.get(), ffnKind, vocab.get(), tied, experts,
                new AttentionShape(headDim, a.position(), a.window(), a.latent())));
    }

    /**
     * The attention-shape fields as read, before the head dimension can be settled.
     *
     * @param headDim  given, or the preset's own; empty: hidden / heads (or latent attention's)
     * @param position rotary or learned positions
     * @param window   the sliding window, or null
     * @param latent   latent attention, or null
     */
    private record AttentionFields(Optional<Integer> headDim, PositionEmbedding position, SlidingWindow window,
                                   LatentAttention latent) {
    }

    /**
     * The attention-shape fields: {@code headDim}, {@code positionEmbedding} ({@code rotary} or
     * {@code learned}), {@code slidingWindow} ({@code tokens}, {@code every}, {@code first}) and
     * {@code latentAttention} ({@code qLoraRank}, {@code kvLoraRank}, {@code qkNopeHeadDim},
     * {@code qkRopeHeadDim}, {@code vHeadDim}). A preset's values are the defaults, its head
     * dimension only where it is not its hidden / heads (so overriding a preset's heads or
     * hidden keeps d = hidden / heads for the presets defined that way). Empty after reporting
     * an error.
     */
    private static Optional<AttentionFields> attentionFields(Section s, Optional<TransformerModel> preset,
                                                             int layers) {
        Optional<AttentionShape> fromPreset = preset.map(TransformerModel::attentionShape);
        boolean ok = true;
        PositionEmbedding position = s.choice("positionEmbedding", fromPreset.map(AttentionShape::position)
                .orElse(PositionEmbedding.ROTARY), Map.of("rotary", PositionEmbedding.ROTARY, "learned",
                PositionEmbedding.LEARNED));
        Optional<Integer> headDim = s.optionalInteger("headDim", 1, 1 << 16);
        ok &= !s.has("headDim") || headDim.isPresent();
        if (headDim.isEmpty()) {
            headDim = preset.filter(m -> m.latentAttention() == null
                    && (long) m.heads() * m.headDim() != m.hidden()).map(TransformerModel::headDim);
        }

        SlidingWindow window = fromPreset.map(AttentionShape::window).orElse(null);
        if (s.has("slidingWindow")) {
            Section w = s.section("slidingWindow");
            Optional<Integer> tokens = window != null && !w.has("tokens") ? Optional.of(window.tokens())
                    : w.requiredInteger("tokens", 1, 1 << 30);
            Optional<Integer> every = w.optionalInteger("every", 1, 1 << 20);
            Optional<Integer> first = w.optionalInteger("first", 0, 1 << 20);
            w.finish();
            ok &= tokens.isPresent() && (every.isPresent() || !w.has("every"))
                    && (first.isPresent() || !w.has("first"));
            int period = every.orElse(window == null ? 1 : window.every());
            int start = first.orElse(window == null ? 0 : window.first());
            if (start >= period) {
                w.error("first", "found " + start + ", expected less than model.slidingWindow.every (" + period
                        + "): the windowed layers are first, first + every, first + 2 every, ...");
                ok = false;
            } else if (layers > 0 && start >= layers) {
                w.error("first", "found " + start + ", expected a layer below model.layers (" + layers + ")");
                ok = false;
            }
            window = ok ? new SlidingWindow(tokens.get(), period, start) : null;
        }

        LatentAttention latent = fromPreset.map(AttentionShape::latent).orElse(null);
        if (s.has("latentAttention")) {
            Section m = s.section("latentAttention");
            LatentAttention p = latent;
            Optional<Integer> q = latentDim(m, "qLoraRank", p == null ? null : p.qLoraRank());
            Optional<Integer> kv = latentDim(m, "kvLoraRank", p == null ? null : p.kvLoraRank());
            Optional<Integer> nope = latentDim(m, "qkNopeHeadDim", p == null ? null : p.qkNopeHeadDim());
            Optional<Integer> rope = latentDim(m, "qkRopeHeadDim", p == null ? null : p.qkRopeHeadDim());
            Optional<Integer> v = latentDim(m, "vHeadDim", p == null ? null : p.vHeadDim());
            m.finish();
            if (q.isEmpty() || kv.isEmpty() || nope.isEmpty() || rope.isEmpty() || v.isEmpty()) {
                return Optional.empty();
            }
            latent = new LatentAttention(q.get(), kv.get(), nope.get(), rope.get(), v.get());
        }
        if (latent != null && s.has("headDim")) {
            s.error("headDim", "latent attention's query/key head dimension is qkNopeHeadDim + qkRopeHeadDim ("
                    + latent.qkHeadDim() + "); leave model.headDim out");
            ok = false;
        }
        if (latent != null && position != PositionEmbedding.ROTARY) {
            s.error("positionEmbedding", "found 'learned', but latent attention carries positions in its rotary "
                    + "head dimensions (qkRopeHeadDim): expected rotary");
            ok = false;
        }
        return ok ? Optional.of(new AttentionFields(headDim, position, window, latent)) : Optional.empty();
    }

    /** One latent-attention dimension: required unless the preset has latent attention. */
    private static Optional<Integer> latentDim(Section m, String key, Integer fromPreset) {
        if (fromPreset != null && !m.has(key)) {
            return Optional.of(fromPreset);
        }
        return m.requiredInteger(key, 1, 1 << 20);
    }

    /**
     * The mixture-of-experts fields: {@code experts} (routed experts; 0 or absent for a dense
     * model), {@code topK}, {@code expertFfn}, {@code sharedExperts}, {@code capacityFactor},
     * {@code denseLayers}, {@code nodeLimit}, {@code expertImbalance}. A preset's values are the defaults.
     */
    private static TransformerModel.Experts experts(Section s, TransformerModel.Experts preset, int layers, int ffn) {
        int count = s.integer("experts", preset == null ? 0 : preset.count(), 0, 1 << 16);
        String[] detail = {"topK", "expertFfn", "sharedExperts", "capacityFactor", "denseLayers", "nodeLimit",
            "expertImbalance"};
        if (count == 0) {
            for (String key : detail) {
                if (s.has(key)) {
                    s.error(key, "only a mixture-of-experts model takes " + key + "; give model.experts (the number "
                            + "of routed experts) too");
                }
            }
            return null;
        }
        int topK = s.integer("topK", preset == null ? 1 : preset.topK(), 1, 1 << 16);
        int expertFfn = s.integer("expertFfn", preset == null ? ffn : preset.ffn(), 1, Integer.MAX_VALUE);
        int shared = s.integer("sharedExperts", preset == null ? 0 : preset.shared(), 0, 1 << 10);
        double capacity = s.optionalNumber("capacityFactor", 0.01, 1000)
                .orElse(preset == null ? 1.0 : preset.capacityFactor());
        int dense = s.integer("denseLayers", preset == null ? 0 : preset.denseLayers(), 0, 1 << 20);
        int nodeLimit = s.integer("nodeLimit", preset == null ? 0 : preset.nodeLimit(), 0, 1 << 16);
        double imbalance = s.optionalNumber("expertImbalance", 1, 1000).orElse(preset == null ? 1.0
                : preset.imbalance());
        if (topK > count) {
            s.error("topK", "found " + topK + ", expected at most model.experts (" + count + ")");
            return null;
        }
        if (layers > 0 && dense >= layers) {
            s.error("denseLayers", "found " + dense + ", expected fewer than model.layers (" + layers + ")");
            return null;
        }
        return new TransformerModel.Experts(count, topK, expertFfn, shared, capacity, dense, nodeLimit, imbalance);
    }

    private static Optional<Integer> dim(Section s, String key, boolean badPreset, Optional<Integer> fromPreset) {
        if (s.has(key) || fromPreset.isEmpty()) {
            if (!s.has(key) && !badPreset) {
                s.requiredInteger(key, 1, Integer.MAX_VALUE);
                return Optional.empty();
            }
            return s.optionalInteger(key, 1, Integer.MAX_VALUE);
        }
        return fromPreset;
    }

    private static Scenario.Training training(Section s) {
        int global = s.requiredInteger("globalBatch", 1, MAX_COUNT).orElse(1);
        int micro = s.integer("microBatch", 1, 1, MAX_COUNT);
        int seq = s.integer("seqLen", 2048, 1, 1 << 22);
        Precision precision = s.choice("precision", Precision.BF16,
                Map.of("bf16", Precision.BF16, "fp16", Precision.FP16, "fp8", Precision.FP8));
        Scenario.Recompute recompute = s.choice("recompute", Scenario.Recompute.NONE,
                Map.of("none", Scenario.Recompute.NONE, "selective", Scenario.Recompute.SELECTIVE,
                        "full", Scenario.Recompute.FULL));
        Fp8Recipe recipe = s.choice("fp8Recipe", Fp8Recipe.DELAYED, Map.of("delayed", Fp8Recipe.DELAYED, "current",
                Fp8Recipe.CURRENT, "blockwise", Fp8Recipe.BLOCKWISE));
        if (s.has("fp8Recipe") && precision != Precision.FP8) {
            s.error("fp8Recipe", "a scaling recipe only applies to training.precision: fp8");
        }
        boolean fusion = s.bool("gradAccumulationFusion", true);
        boolean fp8Gather = s.bool("fp8ParamGather", false);
        if (fp8Gather && precision != Precision.FP8) {
            s.error("fp8ParamGather", "gathering FP8 weights needs training.precision: fp8");
        }
        int mainGrad = s.choice("mainGradDtype", 4, Map.of("fp32", 4, "bf16", 2, "fp16", 2));
        int moments = s.choice("adamMomentDtype", 4, Map.of("fp32", 4, "bf16", 2));
        Set<RecomputeModule> modules = recomputeModules(s, recompute);
        return new Scenario.Training(global, micro, seq, precision, recipe, recompute, fusion, fp8Gather, mainGrad,
                modules, moments);
    }

    /**
     * {@code training.recomputeModules}: Megatron-core's {@code recompute_modules} names, each once,
     * with {@code recompute: selective}; empty when absent (the attention core).
     */
    private static Set<RecomputeModule> recomputeModules(Section s, Scenario.Recompute recompute) {
        if (!s.has("recomputeModules")) {
            s.list("recomputeModules");
            return Set.of();
        }
        List<SourceNode> items = s.list("recomputeModules");
        Set<RecomputeModule> out = EnumSet.noneOf(RecomputeModule.class);
        String path = s.pathOf("recomputeModules");
        for (int i = 0; i < items.size(); i++) {
            SourceNode item = items.get(i);
            Optional<RecomputeModule> m = item instanceof SourceNode.ScalarNode sc
                    && sc.kind() == SourceNode.ScalarKind.STRING ? RecomputeModule.byId(sc.text()) : Optional.empty();
            if (m.isEmpty()) {
                s.diagnostics().error(item.location(), path + "[" + i + "]", "found " + item.describe()
                        + "; expected one of " + RecomputeModule.names());
            } else if (!m.get().supported()) {
                s.diagnostics().error(item.location(), path + "[" + i + "]", "not supported yet: recomputing '"
                        + m.get().id() + "' (the whole MoE layer, its all-to-alls replayed) is not modelled");
            } else if (!out.add(m.get())) {
                s.diagnostics().error(item.location(), path + "[" + i + "]", "found '" + m.get().id()
                        + "' twice; expected each module once");
            }
        }
        if (items.isEmpty()) {
            s.error("recomputeModules", "found an empty list; expected at least one of " + RecomputeModule.names());
        }
        if (recompute != Scenario.Recompute.SELECTIVE) {
            s.error("recomputeModules", "found a list with recompute: " + recompute.name().toLowerCase(Locale.ROOT)
                    + "; expected recompute: selective (Megatron-core applies recompute_modules under "
                    + "--recompute-granularity selective only)");
            return Set.of();
        }
        return out;
    }

    /** The cluster and the device profile of its GPUs. */
    private record ClusterChoice(ClusterSpec spec, DeviceProfile device) {
    }

    /**
     * {@code model.attention}: an implementation the device profile has tables for, or
     * {@code flash} for the profile's default fused implementation; absent, the default.
     */
    private static AttentionImpl attention(Section s, Optional<DeviceProfile> device) {
        Map<String, AttentionImpl> names = new LinkedHashMap<>();
        for (AttentionImpl impl : AttentionImpl.values()) {
            names.put(impl.key(), impl);
        }
        AttentionImpl dflt = device.map(DeviceProfile::defaultAttention).orElse(AttentionImpl.STANDARD);
        names.put("flash", dflt);
        AttentionImpl impl = s.choice("attention", dflt, names);
        if (device.isPresent() && impl != AttentionImpl.STANDARD && !device.get().attention().covers(impl)) {
            s.error("attention", "found '" + impl.key() + "', but the " + device.get().name()
                    + " device profile has no table for it; expected standard or one of the profile's: "
                    + coveredImpls(device.get()));
        }
        return impl;
    }

    private static String coveredImpls(DeviceProfile device) {
        StringBuilder sb = new StringBuilder();
        for (AttentionImpl impl : AttentionImpl.values()) {
            if (device.attention().covers(impl)) {
                sb.append(sb.length() == 0 ? "" : ", ").append(impl.key());
            }
        }
        return sb.toString();
    }

    /**
     * {@code cluster.deviceProfile} (a bundled profile's name, or a profile file relative to the
     * scenario) with {@code cluster.deviceOverrides} laid over it; by default the bundled profile
     * of the preset's GPU.
     */
    private Optional<DeviceProfile> deviceProfile(Section s, String chip, Path scenario) {
        Optional<String> named = s.text("deviceProfile");
        SourceNode tree;
        if (named.isPresent() && DeviceProfiles.has(named.get())) {
            tree = DeviceProfiles.tree(named.get());
        } else if (named.isPresent()) {
            Path dir = scenario.toAbsolutePath().getParent();
            Path profile = dir == null ? Path.of(named.get()) : dir.resolve(named.get());
            if (!java.nio.file.Files.isRegularFile(profile)) {
                s.error("deviceProfile", "found '" + named.get() + "', expected a bundled profile ("
                        + String.join(", ", DeviceProfiles.NAMES) + ") or a profile file relative to the scenario");
                return Optional.empty();
            }
            tree = treeReader.read(profile);
            Diagnostics own = new Diagnostics(profile);
            new DeviceProfileReader(own).read(tree, "");
            own.throwIfAny();
        } else if (DeviceProfiles.has(chip)) {
            tree = DeviceProfiles.tree(chip);
        } else {
            s.error("preset", "the preset's GPU (" + chip + ") has no bundled device profile; give "
                    + "cluster.deviceProfile");
            return Optional.empty();
        }
        SourceNode overrides = s.node("deviceOverrides").orElse(null);
        if (overrides != null) {
            if (!(overrides instanceof SourceNode.MapNode m)) {
                s.error("deviceOverrides", "found " + overrides.describe() + ", expected a mapping of profile fields");
                return Optional.empty();
            }
            tree = SourceNode.overlay(tree, m);
        }
        return new DeviceProfileReader(s.diagnostics()).read(tree, overrides == null ? "" : s.pathOf("deviceOverrides"));
    }

    private Optional<ClusterChoice> cluster(Section s, Scenario.Parallelism par, Path file) {
        Map<String, String> presets = new LinkedHashMap<>();
        for (String p : SwitchedClusterSpec.presetNames()) {
            presets.put(p, p);
        }
        String presetName = s.choice("preset", "dgx-h100", presets);
        String fabric = s.choice("fabric", "single-switch", FABRICS);
        boolean rails = fabric.equals("rail-optimized");
        boolean fatTree = fabric.equals("fat-tree");
        if (!fabric.equals("single-switch") && !rails && !fatTree) {
            s.notSupported("fabric", fabric + " is planned; use single-switch, rail-optimized or fat-tree");
        }
        int levels = s.integer("levels", 2, 2, 3);
        int radix = s.integer("radix", 64, 4, 1024);
        if (!fatTree && (s.has("levels") || s.has("radix"))) {
            s.error(s.has("levels") ? "levels" : "radix", "only a fat-tree fabric takes levels and radix");
        }
        SwitchedClusterSpec base = SwitchedClusterSpec.preset(presetName, 1).orElseThrow();
        Optional<DeviceProfile> device = deviceProfile(s, base.accelerator().name(), file);
        // without a usable profile the rest of the section is still read, for its own errors
        AcceleratorSpec chip = device.map(DeviceProfile::accelerator).orElse(base.accelerator());
        int gpusPerNode = s.integer("gpusPerNode", base.gpusPerNode(), 1, 1024);
        int defaultNodes = Math.max(1, (par.gpus() + gpusPerNode - 1) / gpusPerNode);
        int nodes = s.integer("nodes", defaultNodes, 1, MAX_COUNT);
        double nvlink = s.optionalNumber("nvlinkBandwidthGBps", 1e-3, 1e6).map(g -> g * 1e9)
                .orElse(base.nvlinkBytesPerS());
        long nvlinkLat = s.optionalNumber("nvlinkLatencyNs", 0, 1e12).map(Math::round).orElse(base.nvlinkLatencyNs());
        double nic = s.optionalNumber("nicBandwidthGBps", 1e-3, 1e6).map(g -> g * 1e9).orElse(base.nicBytesPerS());
        long gpuNicLat = s.optionalNumber("gpuNicLatencyNs", 0, 1e12).map(Math::round)
                .orElse(base.gpuNicLatencyNs());
        long nicSwitchLat = s.optionalNumber("nicLatencyNs", 0, 1e12).map(Math::round)
                .orElse(base.nicSwitchLatencyNs());
        double ratio = s.optionalNumber("oversubscription", 1, 1024).orElse(1.0);
        if (!rails && !fatTree) {
            if (s.has("oversubscription") && ratio != 1) {
                s.error("oversubscription", "found " + ratio + ", but a single-switch fabric has no level to "
                        + "oversubscribe; use fabric: rail-optimized or fat-tree");
            }
            return device.map(dev -> new ClusterChoice(new SwitchedClusterSpec(base.name(), chip, nodes, gpusPerNode,
                    nvlink, nvlinkLat, nic, gpuNicLat, nicSwitchLat), dev));
        }
        if (fatTree) {
            double[] ratios = levels == 2 ? new double[] {ratio} : new double[] {ratio, 1};
            try {
                FatTreeSpec tree = new FatTreeSpec(base.name() + "-fattree", chip, nodes, gpusPerNode, nvlink, nic,
                        radix, ratios);
                return device.map(dev -> new ClusterChoice(tree, dev));
            } catch (IllegalArgumentException e) {
                s.error("nodes", "found " + nodes + ": " + e.getMessage());
                return Optional.empty();
            }
        }
        int perUnit = Math.min(nodes, 32);
        int units = (nodes + 31) / 32;
        if (nodes > 32 && (nodes % 32 != 0 || (units > 8 && units % 4 != 0))) {
            s.error("nodes", "found " + nodes + ", but a rail-optimized fabric is built from scalable units of 32 "
                    + "servers: expected up to 32 servers, or 32 x (1..8 or a multiple of 4)");
            return Optional.empty();
        }
        SuperPodSpec pod = new SuperPodSpec(base.name() + "-rails", chip, units, gpusPerNode, perUnit, nvlink, nvlinkLat,
                nic, gpuNicLat, nicSwitchLat, ratio);
        return device.map(dev -> new ClusterChoice(pod, dev));
    }

    private static final List<String> TARGETS = List.of("link", "switch", "nic", "gpu");

    /**
     * The {@code faults} list: each entry names one target ({@code link}, {@code switch},
     * {@code nic} or {@code gpu}), when it starts ({@code at}) and how long it lasts
     * ({@code for}, absent: the rest of the run); links, switches and NICs go {@code down} or
     * {@code degraded} (a {@code fraction} of capacity, optional {@code extraLatencyUs}); a GPU
     * runs at {@code speed}.
     */
    private static List<Fault> faults(Section root, List<SourceNode> items, Diagnostics d) {
        List<Fault> out = new java.util.ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            SourceNode item = items.get(i);
            String path = "faults[" + i + "]";
            if (!(item instanceof SourceNode.MapNode m)) {
                d.error(item.location(), path, "found " + item.describe() + ", expected a mapping with one of link, "
                        + "switch, nic or gpu, and at, for, state");
                continue;
            }
            Section f = new Section(d, path, m, m.location());
            List<String> given = TARGETS.stream().filter(f::has).toList();
            if (given.size() != 1) {
                f.error(given.isEmpty() ? "link" : given.get(1), given.isEmpty()
                        ? "missing target: expected one of link (such as node0.gpu0->node0.nic0, or a<->b for both "
                        + "directions), switch, nic or gpu (clustersim topology SCENARIO --links lists them)"
                        : "found " + String.join(" and ", given) + "; expected one target per fault");
            }
            String key = given.isEmpty() ? "link" : given.get(0);
            Fault.Target target = Fault.Target.valueOf(key.toUpperCase(java.util.Locale.ROOT));
            Optional<String> name = f.text(key);
            long at = f.text("at").map(t -> Durations.parseNs(t, f, "at")).orElse(0L);
            long duration = f.text("for").map(t -> t.trim().equals("rest") ? 0L : Durations.parseNs(t, f, "for"))
                    .orElse(0L);
            if (f.has("for") && duration == 0 && !f.text("for").orElse("").trim().equals("rest")) {
                f.error("for", "a fault lasts longer than 0; leave for out (or write rest) for the rest of the run");
            }
            double speed = 1;
            double fraction = 1;
            long extra = 0;
            if (target == Fault.Target.GPU) {
                speed = f.optionalNumber("speed", 1e-3, 1).orElse(0.8);
            } else {
                String state = f.choice("state", "down", Map.of("down", "down", "degraded", "degraded"));
                fraction = f.optionalNumber("fraction", 0, 1).orElse(state.equals("down") ? 0.0 : 0.5);
                if (state.equals("down") && f.has("fraction")) {
                    f.error("fraction", "a link that is down carries nothing; give state: degraded to keep a fraction");
                }
                if (state.equals("degraded") && !(fraction > 0)) {
                    f.error("fraction", "found " + fraction + ", expected a fraction above 0 (use state: down for 0)");
                }
                if (state.equals("down")) {
                    fraction = 0;
                }
                extra = f.optionalNumber("extraLatencyUs", 0, 1e9).map(us -> Math.round(us * 1000)).orElse(0L);
            }
            f.finish();
            double c = fraction;
            double sp = speed;
            long x = extra;
            name.ifPresent(n -> out.add(new Fault(target, n, at, duration, c, x, sp, f.locationOf(key),
                    path + "." + key)));
        }
        return out;
    }

    private static void crossCheck(Section clusterSec, Section parSec, Section schedSec, Section trainSec,
                                   ClusterSpec cluster, TransformerModel model, Scenario.Parallelism par,
                                   ScheduleKind schedule, Scenario.Training training) {
        int stages = par.pp() * (schedule == ScheduleKind.DUALPIPE ? 1 : par.vp());
        if (par.layersPerStage() != null) {
            int[] split = par.layersPerStage();
            int sum = java.util.Arrays.stream(split).sum();
            if (split.length != stages) {
                parSec.error("layersPerStage", "found " + split.length + " entries; expected one per stage ("
                        + stages + ")");
            } else if (sum != model.layers()) {
                parSec.error("layersPerStage", "the entries add up to " + sum + "; expected model.layers ("
                        + model.layers() + ")");
            }
        } else if (model.layers() % stages != 0) {
            parSec.error("pp", "found " + par.pp() + (stages == par.pp() ? "" : ", which with " + par.vp()
                    + " chunks per rank makes " + stages + " stages") + "; expected the stages to divide model.layers ("
                    + model.layers() + "), or give parallelism.layersPerStage");
        }
        if (par.etp() != par.tp() && model.experts() == null) {
            parSec.error("etp", "found " + par.etp() + ", but " + model.name() + " has no experts; expert tensor "
                    + "parallelism needs a mixture-of-experts model (model.experts)");
        }
        if (par.ep() > 1 && model.experts() == null) {
            parSec.error("ep", "found " + par.ep() + ", but " + model.name() + " has no experts; expert parallelism "
                    + "needs a mixture-of-experts model (model.experts)");
        } else if (model.experts() != null && model.experts().count() % par.ep() != 0) {
            parSec.error("ep", "found " + par.ep() + ", expected a divisor of model.experts ("
                    + model.experts().count() + ")");
        }
        if (training.seqLen() % par.cp() != 0) {
            parSec.error("cp", "found " + par.cp() + "; expected a divisor of training.seqLen (" + training.seqLen()
                    + ")");
        }
        if (cluster.gpus() != par.gpus()) {
            String where = clusterSec.has("nodes") ? "nodes" : "gpusPerNode";
            clusterSec.error(where, "the cluster has " + cluster.gpus() + " GPUs (" + cluster.nodes() + " nodes x "
                    + cluster.gpusPerNode() + "), but the layout tp x cp x pp x dp uses " + par.gpus()
                    + "; expected them to be equal");
        }
        int perStep = training.microBatch() * par.dp();
        if (training.globalBatch() % perStep != 0) {
            trainSec.error("globalBatch", "found " + training.globalBatch()
                    + ", expected a multiple of training.microBatch x parallelism.dp (" + perStep + ")");
        } else {
            int m = training.globalBatch() / perStep;
            try {
                schedule.schedule(par.vp() == 0 ? 1 : par.vp()).validate(par.pp(), m);
            } catch (IllegalArgumentException e) {
                schedSec.error("kind", e.getMessage() + " (m = training.globalBatch / (microBatch x dp) = " + m + ")");
            }
        }
        if (par.overlapMoeExpertParallelComm()) {
            boolean combinable = schedule == ScheduleKind.INTERLEAVED || (schedule == ScheduleKind.ONE_F_ONE_B
                    && par.pp() == 1);
            if (!combinable) {
                parSec.error("overlapMoeExpertParallelComm", "found true with schedule.kind: " + schedule.id()
                        + " on pp " + par.pp() + "; expected schedule.kind: interleaved (Megatron-core needs a virtual "
                        + "pipeline size when pp > 1), or 1f1b with pp: 1");
            }
            if (training.recompute() == Scenario.Recompute.FULL) {
                parSec.error("overlapMoeExpertParallelComm", "found true with training.recompute: full; Megatron-core "
                        + "disables full recomputation under the all-to-all overlap");
            }
        }
        allToAll(parSec, cluster, model, par);
        if (training.recomputeModules().contains(RecomputeModule.MLA_UP_PROJ) && model.latentAttention() == null) {
            trainSec.error("recomputeModules", "found mla_up_proj, but " + model.name() + " has no latent attention "
                    + "(model.latentAttention)");
        }
        if (!(training.precision().peak(cluster.accelerator()) > 0)) {
            trainSec.error("precision", "found " + training.precision().name().toLowerCase(java.util.Locale.ROOT)
                    + ", but " + cluster.accelerator().name() + " has no such tensor cores; expected bf16 or fp16");
        }
    }

    /**
     * Whether the chosen MoE all-to-all can run: any choice but auto needs expert parallelism;
     * node-limited needs the model's node limit; pxn and node-limited need every EP group to span
     * servers with as many GPUs on each (the rail-aligned plans pair GPUs by local index).
     */
    private static void allToAll(Section parSec, ClusterSpec cluster, TransformerModel model,
                                 Scenario.Parallelism par) {
        AllToAllAlgorithm a = par.allToAll();
        if (a == AllToAllAlgorithm.AUTO) {
            return;
        }
        if (model.experts() == null || par.ep() < 2) {
            parSec.error("allToAll", "found " + a.id() + (model.experts() == null ? ", but " + model.name()
                    + " has no experts" : " with ep: " + par.ep()) + "; expected expert parallelism (ep > 1), whose "
                    + "token exchanges it chooses, or leave it out (auto)");
            return;
        }
        if (a == AllToAllAlgorithm.NODE_LIMITED && model.experts().nodeLimit() < 1) {
            parSec.error("allToAll", "found node-limited, but " + model.name() + " routes tokens without a node limit "
                    + "(model.nodeLimit is 0); expected model.nodeLimit >= 1, or auto, pxn or direct");
            return;
        }
        if (a == AllToAllAlgorithm.DIRECT || cluster.gpus() != par.gpus()) {
            return;
        }
        Mesh mesh = new Mesh(par.tp(), par.cp(), par.pp(), par.dp(), par.ep(), par.etp(), par.order());
        int perNode = cluster.gpusPerNode();
        for (int p = 0; p < par.pp(); p++) {
            for (int[] group : mesh.experts().expertParallelGroups(p)) {
                Map<Integer, Integer> onNode = new java.util.TreeMap<>();
                for (int d : group) {
                    onNode.merge(d / perNode, 1, Integer::sum);
                }
                String why = onNode.size() < 2 ? "sits in one server"
                        : onNode.values().stream().distinct().count() > 1 ? "takes unequal numbers of GPUs from "
                        + "its servers" : null;
                if (why != null) {
                    parSec.error("allToAll", "found " + a.id() + ", but the EP group of GPU " + group[0] + " ("
                            + group.length + " GPUs, stage " + p + ") " + why + "; " + a.id() + " pairs GPUs by local index across servers: expected EP "
                            + "groups spanning servers with as many GPUs on each, or direct / auto");
                    return;
                }
            }
        }
    }

    private static Map<String, String> names(String... names) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String n : names) {
            m.put(n, n);
        }
        return m;
    }

    private static String stem(Path file) {
        String f = file.getFileName().toString();
        int dot = f.lastIndexOf('.');
        return dot > 0 ? f.substring(0, dot) : f;
    }
}
