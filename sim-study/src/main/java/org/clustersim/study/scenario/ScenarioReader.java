package org.clustersim.study.scenario;

import static org.clustersim.study.scenario.ScenarioFields.*;

import org.clustersim.core.input.Diagnostics;
import org.clustersim.core.input.InputFileException;
import org.clustersim.core.input.Section;
import org.clustersim.core.input.SourceNode;
import org.clustersim.core.input.SourceTreeReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Set;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.clustersim.strategies.training.AllToAllAlgorithm;
import org.clustersim.strategies.training.ContextParallel;
import org.clustersim.strategies.training.Layout;
import org.clustersim.strategies.training.LayoutBuilder;
import org.clustersim.strategies.training.LayoutRules;
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

        String name = NAME.text(root).orElseGet(() -> stem(file));
        Section clusterSec = CLUSTER.section(root);
        Section modelSec = MODEL.section(root);
        Section parSec = PARALLELISM.section(root);
        Section schedSec = SCHEDULE.section(root);
        Section trainSec = TRAINING.section(root);
        Section netSec = NETWORK.section(root);
        List<Fault> faults = faults(FAULTS.list(root), d);
        Section outSec = OUTPUT.section(root);
        Section simSec = SIMULATION.section(root);
        boolean allReplicas = REPLICAS.choice(simSec);
        boolean allowOom = ALLOW_OOM.bool(simSec);
        boolean interference = INTERFERENCE.bool(simSec);
        int steps = STEPS.integer(simSec);
        Simulation.Kernel kernel = KERNEL.choice(simSec);

        Scenario.Parallelism declared = parallelism(parSec, schedSec);
        ScheduleKind schedule = schedule(schedSec);
        boolean blockingSends = P2P.choice(schedSec);
        int chunks = chunks(parSec, schedSec, schedule, declared.vp());
        Scenario.Training training = training(trainSec);
        Optional<TpuSectionReader.Remat> remat = TpuSectionReader.remat(trainSec);
        if (remat.isPresent()) {
            Scenario.Training t = training;
            training = new Scenario.Training(t.globalBatch(), t.microBatch(), t.seqLen(), t.precision(), t.fp8Recipe(),
                    remat.get().recompute(), t.gradAccumulationFusion(), t.fp8ParamGather(), t.mainGradBytes(),
                    remat.get().modules(), t.adamMomentBytes());
        }
        long bucket = given(parSec, BUCKET.name()) ? declared.gradBucketBytes()
                : TrainingStep.defaultBucketBytes(declared.dp() * declared.cp(), training.mainGradBytes());
        Scenario.Parallelism par = new Scenario.Parallelism(Layout.builder().layout(declared.layout())
                .bucketBytes(bucket).layout(), chunks, declared.layersPerStage(), declared.overlapParamGather(),
                declared.overlapMoeExpertParallelComm());
        Optional<TransformerModel> model = model(modelSec);
        Optional<ClusterChoice> cluster;
        // an unknown preset was reported; the rest is read as for the default (GPU) preset
        String preset = CLUSTER_PRESET.choice(clusterSec);
        boolean collectiveMatmul = TpuSectionReader.collectiveMatmul(parSec);
        if (TpuSectionReader.presets().contains(preset)) {
            Optional<TpuSectionReader.TpuCluster> tpu = TpuSectionReader.cluster(clusterSec, preset, parSec,
                    chip -> deviceProfile(clusterSec, chip, file));
            cluster = tpu.map(t -> new ClusterChoice(t.torus(), t.device()));
            if (tpu.isPresent() && tpu.get().mesh().isPresent()) {
                par = TpuSectionReader.parallelism(parSec, tpu.get().mesh().get(), par,
                        collectiveMatmul);
            }
        } else {
            if (TpuSectionReader.hasMesh(parSec)) {
                parSec.error("mesh", "a JAX mesh (ici_* and dcn_* degrees) lays out TPU chips; expected cluster.preset "
                        + String.join(", ", TpuSectionReader.presets()) + ", or tp, dp, pp, cp for GPUs");
            }
            TpuSectionReader.gpuCluster(clusterSec, parSec);
            cluster = cluster(clusterSec, preset, par, file);
        }
        AttentionImpl attention = attention(modelSec, cluster.map(ClusterChoice::device));
        Simulation.Fidelity fidelity = FIDELITY.choice(netSec);
        Simulation.Routing routing = ROUTING.choice(netSec);
        Scenario.Output output = new Scenario.Output(TRACE.text(outSec), SUMMARY.text(outSec),
                LINK_COUNTERS.bool(outSec));

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
                kernel, output);
    }

    private static Scenario.Parallelism parallelism(Section s, Section schedule) {
        int tp = TP.integer(s);
        int pp = PP.integer(s);
        int dp = DP.integer(s);
        int cp = CP.integer(s);
        int ep = EP.integer(s);
        // Megatron-core: expert_tensor_parallel_size defaults to tensor_model_parallel_size
        int etp = ETP.integer(s, tp);
        int vp = VP.integer(s);
        int v = V.integer(schedule, vp);
        int zero = ZERO.integer(s);
        boolean sp = SEQUENCE_PARALLEL.bool(s);
        boolean overlap = OVERLAP_GRAD.bool(s);
        boolean overlapParamGather = OVERLAP_PARAM_GATHER.bool(s);
        boolean a2aOverlap = A2A_OVERLAP.bool(s);
        AllToAllAlgorithm allToAll = ALL_TO_ALL.choice(s);
        double bucketMb = BUCKET.number(s).orElse(TrainingStep.DEFAULT_BUCKET / 1e6);
        int[] layersPerStage = LAYERS_PER_STAGE.integerList(s).orElse(null);
        int shardGroup = SHARD_GROUP.integer(s, 0);
        ContextParallel cpVariant = CP_VARIANT.choice(s);
        List<Mesh.Dim> order = Mesh.DEFAULT_ORDER;
        Optional<String> orderText = ORDER.text(s);
        if (orderText.isPresent()) {
            try {
                order = Mesh.parseOrder(orderText.get());
            } catch (IllegalArgumentException e) {
                s.error("order", "found '" + orderText.get() + "': " + e.getMessage()
                        + " (innermost first, for example tp-cp-pp-dp)");
            }
        }
        List<LayoutRules.Violation> broken = new ArrayList<>();
        LayoutRules.overlapParamGather(broken, overlapParamGather, zero, overlap);
        if (vp != 1 && given(schedule, "v") && v != vp) {
            schedule.error("v", "found " + v + ", but parallelism.vp is " + vp + "; give one of them");
        }
        LayoutRules.moeOverlap(broken, a2aOverlap, ep, pp, null, null);
        report(s, broken);
        ShardingOptions sharding = sharding(s, zero, pp, v);
        LayoutBuilder b = Layout.builder().sizes(tp, cp, pp, dp).experts(ep, etp).order(order)
                .zero(zero).shardGroup(given(s, "shardGroup") ? shardGroup : 0).sharding(sharding)
                .sequenceParallel(sp).cpKind(cpVariant)
                .bucketBytes(Math.round(bucketMb * 1e6)).overlapGradReduce(overlap)
                .tpCommOverlap(TP_COMM_OVERLAP.bool(s))
                .allToAll(allToAll);
        report(s, LayoutRules.layout(b));
        Layout layout;
        try {
            layout = b.layout();
        } catch (IllegalArgumentException e) {
            // the expert fold was reported above; the rest is read without experts
            layout = b.experts(1, tp).layout();
        }
        return new Scenario.Parallelism(layout, v, layersPerStage, overlapParamGather, a2aOverlap);
    }

    /**
     * ZeRO 3's framework and options: {@code zero3Impl}, {@code reshardAfterForward} (fsdp2 only)
     * and {@code gradReduceDtype}, each an error below ZeRO 3.
     */
    private static ShardingOptions sharding(Section s, int zero, int pp, int v) {
        Zero3Impl impl = ZERO3_IMPL.choice(s);
        boolean reshard = RESHARD.bool(s);
        int reduceBytes = GRAD_REDUCE_DTYPE.choice(s, 0);
        boolean ok = true;
        for (String key : List.of("zero3Impl", "reshardAfterForward", "gradReduceDtype")) {
            if (given(s, key) && zero != 3) {
                s.error(key, "given with zero: " + zero + "; expected zero: 3, the only stage that gathers weights "
                        + "layer by layer");
                ok = false;
            }
        }
        if (given(s, "reshardAfterForward") && impl != Zero3Impl.FSDP2 && zero == 3) {
            s.error("reshardAfterForward", "found " + reshard + " with zero3Impl: " + impl.id() + "; only fsdp2 has "
                    + "reshard_after_forward (Megatron-FSDP always reshards; DeepSpeed keeps what its "
                    + "stage3_max_reuse_distance says)");
            ok = false;
        }
        List<LayoutRules.Violation> broken = new ArrayList<>();
        LayoutRules.deepSpeed(broken, zero, impl, pp, v);
        report(s, broken);
        ok &= broken.isEmpty();
        if (!ok || zero != 3) {
            return ShardingOptions.defaults();
        }
        return new ShardingOptions(impl, reshard, reduceBytes, ShardingOptions.DeepSpeedConfig.DEFAULTS);
    }

    private static ScheduleKind schedule(Section s) {
        return KIND.choice(s);
    }

    /**
     * The chunk count the schedule runs with: v >= 2 for interleaved, 2 for the V shapes, 1
     * otherwise. Reports a v that does not fit the schedule.
     */
    private static int chunks(Section parSec, Section schedSec, ScheduleKind kind, int v) {
        Section where = given(schedSec, "v") ? schedSec : parSec;
        String key = given(schedSec, "v") ? "v" : "vp";
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
        TransformerModel p = MODEL_PRESET.choice(s);
        // An unknown preset was reported already; read the other fields without demanding them.
        boolean badPreset = p == null && given(s, "preset");
        Optional<TransformerModel> preset = Optional.ofNullable(p);
        String name = MODEL_NAME.text(s).orElse(preset.map(TransformerModel::name).orElse("custom"));
        Optional<Integer> layers = dim(s, LAYERS, badPreset, preset.map(TransformerModel::layers));
        Optional<Integer> hidden = dim(s, HIDDEN, badPreset, preset.map(TransformerModel::hidden));
        Optional<Integer> heads = dim(s, HEADS, badPreset, preset.map(TransformerModel::heads));
        Optional<Integer> ffn = FFN.optionalInteger(s)
                .or(() -> preset.map(TransformerModel::ffn)).or(() -> hidden.map(h -> 4 * h));
        Optional<Integer> vocab = dim(s, VOCAB, badPreset, preset.map(TransformerModel::vocab));
        Optional<Integer> kvHeads = KV_HEADS.optionalInteger(s)
                .or(() -> preset.map(TransformerModel::kvHeads)).or(() -> heads);
        TransformerModel.FfnKind ffnKind = FFN_KIND.choice(s, preset.map(TransformerModel::ffnKind)
                .orElse(TransformerModel.FfnKind.GELU));
        boolean tied = TIED.bool(s, preset.map(TransformerModel::tiedEmbeddings).orElse(false));
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
            if (given(s, "kvHeads") && !kvHeads.equals(heads)) {
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
        PositionEmbedding position = POSITION.choice(s, fromPreset.map(AttentionShape::position)
                .orElse(PositionEmbedding.ROTARY));
        Optional<Integer> headDim = HEAD_DIM.optionalInteger(s);
        ok &= !given(s, "headDim") || headDim.isPresent();
        if (headDim.isEmpty()) {
            headDim = preset.filter(m -> m.latentAttention() == null
                    && (long) m.heads() * m.headDim() != m.hidden()).map(TransformerModel::headDim);
        }

        SlidingWindow window = fromPreset.map(AttentionShape::window).orElse(null);
        if (given(s, "slidingWindow")) {
            Section w = SLIDING_WINDOW.section(s);
            Optional<Integer> tokens = window != null && !given(w, "tokens") ? Optional.of(window.tokens())
                    : WINDOW_TOKENS.requiredInteger(w);
            Optional<Integer> every = WINDOW_EVERY.optionalInteger(w);
            Optional<Integer> first = WINDOW_FIRST.optionalInteger(w);
            w.finish();
            ok &= tokens.isPresent() && (every.isPresent() || !given(w, "every"))
                    && (first.isPresent() || !given(w, "first"));
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
        if (given(s, "latentAttention")) {
            Section m = LATENT.section(s);
            LatentAttention p = latent;
            Optional<Integer> q = latentDim(m, Q_LORA, p == null ? null : p.qLoraRank());
            Optional<Integer> kv = latentDim(m, KV_LORA, p == null ? null : p.kvLoraRank());
            Optional<Integer> nope = latentDim(m, QK_NOPE, p == null ? null : p.qkNopeHeadDim());
            Optional<Integer> rope = latentDim(m, QK_ROPE, p == null ? null : p.qkRopeHeadDim());
            Optional<Integer> v = latentDim(m, V_HEAD, p == null ? null : p.vHeadDim());
            m.finish();
            if (q.isEmpty() || kv.isEmpty() || nope.isEmpty() || rope.isEmpty() || v.isEmpty()) {
                return Optional.empty();
            }
            latent = new LatentAttention(q.get(), kv.get(), nope.get(), rope.get(), v.get());
        }
        if (latent != null && given(s, "headDim")) {
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
    private static Optional<Integer> latentDim(Section m, Field field, Integer fromPreset) {
        if (fromPreset != null && !given(m, field.name())) {
            return Optional.of(fromPreset);
        }
        return field.requiredInteger(m);
    }

    /**
     * The mixture-of-experts fields: {@code experts} (routed experts; 0 or absent for a dense
     * model), {@code topK}, {@code expertFfn}, {@code sharedExperts}, {@code capacityFactor},
     * {@code denseLayers}, {@code nodeLimit}, {@code expertImbalance}. A preset's values are the defaults.
     */
    private static TransformerModel.Experts experts(Section s, TransformerModel.Experts preset, int layers, int ffn) {
        int count = EXPERTS.integer(s, preset == null ? 0 : preset.count());
        // every field is checked on its own first, so a bad value is reported even for a dense model
        int topK = TOP_K.integer(s, preset == null ? 1 : preset.topK());
        int expertFfn = EXPERT_FFN.integer(s, preset == null ? ffn : preset.ffn());
        int shared = SHARED_EXPERTS.integer(s, preset == null ? 0 : preset.shared());
        double capacity = CAPACITY.number(s).orElse(preset == null ? 1.0 : preset.capacityFactor());
        int dense = DENSE_LAYERS.integer(s, preset == null ? 0 : preset.denseLayers());
        int nodeLimit = NODE_LIMIT.integer(s, preset == null ? 0 : preset.nodeLimit());
        double imbalance = IMBALANCE.number(s).orElse(preset == null ? 1.0 : preset.imbalance());
        if (count == 0) {
            for (Field f : List.of(TOP_K, EXPERT_FFN, SHARED_EXPERTS, CAPACITY, DENSE_LAYERS, NODE_LIMIT,
                    IMBALANCE)) {
                if (given(s, f.name())) {
                    s.error(f.name(), "only a mixture-of-experts model takes " + f.name() + "; give model.experts "
                            + "(the number of routed experts) too");
                }
            }
            return null;
        }
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

    private static Optional<Integer> dim(Section s, Field field, boolean badPreset, Optional<Integer> fromPreset) {
        if (fromPreset.isPresent() && s.node(field.name()).isEmpty()) {
            return fromPreset;
        }
        return badPreset ? field.optionalInteger(s) : field.requiredInteger(s);
    }

    private static Scenario.Training training(Section s) {
        int global = GLOBAL_BATCH.requiredInteger(s).orElse(1);
        int micro = MICRO_BATCH.integer(s);
        int seq = SEQ_LEN.integer(s);
        Precision precision = PRECISION.choice(s);
        Scenario.Recompute recompute = RECOMPUTE.choice(s);
        Fp8Recipe recipe = FP8_RECIPE.choice(s);
        if (given(s, "fp8Recipe") && precision != Precision.FP8) {
            s.error("fp8Recipe", "a scaling recipe only applies to training.precision: fp8");
        }
        boolean fusion = GRAD_FUSION.bool(s);
        boolean fp8Gather = FP8_GATHER.bool(s);
        if (fp8Gather && precision != Precision.FP8) {
            s.error("fp8ParamGather", "gathering FP8 weights needs training.precision: fp8");
        }
        int mainGrad = MAIN_GRAD.choice(s);
        int moments = ADAM_MOMENTS.choice(s);
        Set<RecomputeModule> modules = recomputeModules(s, recompute);
        return new Scenario.Training(global, micro, seq, precision, recipe, recompute, fusion, fp8Gather, mainGrad,
                modules, moments);
    }

    /**
     * {@code training.recomputeModules}: Megatron-core's {@code recompute_modules} names, each once,
     * with {@code recompute: selective}; empty when absent (the attention core).
     */
    private static Set<RecomputeModule> recomputeModules(Section s, Scenario.Recompute recompute) {
        List<SourceNode> items = RECOMPUTE_MODULES.list(s);
        if (!given(s, "recomputeModules")) {
            return Set.of();
        }
        Set<RecomputeModule> out = EnumSet.noneOf(RecomputeModule.class);
        String path = s.pathOf("recomputeModules");
        for (int i = 0; i < items.size(); i++) {
            SourceNode item = items.get(i);
            Optional<RecomputeModule> m = item instanceof SourceNode.ScalarNode sc
                    && sc.kind() == SourceNode.ScalarKind.STRING ? RecomputeModule.byId(sc.text())
                    : Optional.empty();
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
        AttentionImpl dflt = device.map(DeviceProfile::defaultAttention).orElse(AttentionImpl.STANDARD);
        Map<String, AttentionImpl> names = new LinkedHashMap<>();
        for (String key : ATTENTION.names()) {
            names.put(key, key.equals("flash") ? dflt : AttentionImpl.valueOf(key.toUpperCase(Locale.ROOT)));
        }
        AttentionImpl impl = s.choice(ATTENTION.name(), dflt, names);
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
    Optional<DeviceProfile> deviceProfile(Section s, String chip, Path scenario) {
        Optional<String> named = DEVICE_PROFILE.text(s);
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
        SourceNode overrides = s.node(DEVICE_OVERRIDES.name()).orElse(null);
        if (overrides != null) {
            if (!(overrides instanceof SourceNode.MapNode m)) {
                s.error("deviceOverrides", "found " + overrides.describe() + ", expected a mapping of profile fields");
                return Optional.empty();
            }
            tree = SourceNode.overlay(tree, m);
        }
        return new DeviceProfileReader(s.diagnostics()).read(tree, overrides == null ? "" : s.pathOf("deviceOverrides"));
    }

    private Optional<ClusterChoice> cluster(Section s, String presetName, Scenario.Parallelism par, Path file) {
        String fabric = FABRIC.choice(s);
        boolean rails = fabric.equals("rail-optimized");
        boolean fatTree = fabric.equals("fat-tree");
        int levels = LEVELS.integer(s);
        int radix = RADIX.integer(s);
        if (!fatTree && (given(s, "levels") || given(s, "radix"))) {
            s.error(given(s, "levels") ? "levels" : "radix", "only a fat-tree fabric takes levels and radix");
        }
        SwitchedClusterSpec base = SwitchedClusterSpec.preset(presetName, 1).orElseThrow();
        Optional<DeviceProfile> device = deviceProfile(s, base.accelerator().name(), file);
        // without a usable profile the rest of the section is still read, for its own errors
        AcceleratorSpec chip = device.map(DeviceProfile::accelerator).orElse(base.accelerator());
        int gpusPerNode = GPUS_PER_NODE.integer(s, base.gpusPerNode());
        int defaultNodes = Math.max(1, (par.gpus() + gpusPerNode - 1) / gpusPerNode);
        int nodes = NODES.integer(s, defaultNodes);
        double nvlink = NVLINK_BW.number(s).map(g -> g * 1e9).orElse(base.nvlinkBytesPerS());
        long nvlinkLat = NVLINK_LAT.number(s).map(Math::round).orElse(base.nvlinkLatencyNs());
        double nic = NIC_BW.number(s).map(g -> g * 1e9).orElse(base.nicBytesPerS());
        long gpuNicLat = GPU_NIC_LAT.number(s).map(Math::round).orElse(base.gpuNicLatencyNs());
        long nicSwitchLat = NIC_LAT.number(s).map(Math::round).orElse(base.nicSwitchLatencyNs());
        double ratio = OVERSUBSCRIPTION.number(s).orElse((Double) OVERSUBSCRIPTION.dflt());
        if (!rails && !fatTree) {
            if (given(s, "oversubscription") && ratio != 1) {
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
        SuperPodSpec pod;
        try {
            pod = new SuperPodSpec(base.name() + "-rails", chip, units, gpusPerNode, perUnit, nvlink, nvlinkLat, nic,
                    gpuNicLat, nicSwitchLat, ratio);
        } catch (IllegalArgumentException e) {
            s.error(given(s, "gpusPerNode") ? "gpusPerNode" : "nodes", "found " + nodes + " servers of " + gpusPerNode
                    + " GPUs: " + e.getMessage());
            return Optional.empty();
        }
        return device.map(dev -> new ClusterChoice(pod, dev));
    }

    /**
     * The {@code faults} list: each entry names one target ({@code link}, {@code switch},
     * {@code nic} or {@code gpu}), when it starts ({@code at}) and how long it lasts
     * ({@code for}, absent: the rest of the run); links, switches and NICs go {@code down} or
     * {@code degraded} (a {@code fraction} of capacity, optional {@code extraLatencyUs}); a GPU
     * runs at {@code speed}.
     */
    private static List<Fault> faults(List<SourceNode> items, Diagnostics d) {
        List<String> targets = List.copyOf(((Field.VariantListType) FAULTS.type()).variants().keySet());
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
            // an empty target counts as none, so a fault is never dropped silently
            List<String> given = targets.stream().filter(k -> f.node(k).isPresent()).toList();
            if (given.size() != 1) {
                f.error(given.isEmpty() ? "link" : given.get(1), given.isEmpty()
                        ? "missing target: expected one of link (such as node0.gpu0->node0.nic0, or a<->b for both "
                        + "directions), switch, nic or gpu (clustersim topology SCENARIO --links lists them)"
                        : "found " + String.join(" and ", given) + "; expected one target per fault");
            }
            String key = given.isEmpty() ? "link" : given.get(0);
            Fault.Target target = Fault.Target.valueOf(key.toUpperCase(java.util.Locale.ROOT));
            Optional<String> name = f.text(key);
            long at = AT.text(f).map(t -> Durations.parseNs(t, f, "at")).orElse(0L);
            Optional<String> forText = FOR.text(f);
            boolean rest = forText.map(t -> t.trim().equalsIgnoreCase("rest")).orElse(true);
            int before = d.errorCount();
            long duration = rest ? 0L : Durations.parseNs(forText.get(), f, "for");
            if (!rest && duration == 0 && d.errorCount() == before) {
                f.error("for", "a fault lasts longer than 0; leave for out (or write rest) for the rest of the run");
            }
            double speed = 1;
            double fraction = 1;
            long extra = 0;
            if (target == Fault.Target.GPU) {
                speed = SPEED.number(f).orElse((Double) SPEED.dflt());
            } else {
                String state = STATE.choice(f);
                fraction = FRACTION.number(f).orElse(state.equals("down") ? 0.0 : 0.5);
                if (state.equals("down") && given(f, "fraction")) {
                    f.error("fraction", "a link that is down carries nothing; give state: degraded to keep a fraction");
                }
                if (state.equals("degraded") && !(fraction > 0)) {
                    f.error("fraction", "found " + fraction + ", expected a fraction above 0 (use state: down for 0)");
                }
                if (state.equals("down")) {
                    fraction = 0;
                }
                extra = EXTRA_LATENCY.number(f).map(us -> Math.round(us * 1000)).orElse(0L);
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
        List<LayoutRules.Violation> broken = new ArrayList<>();
        LayoutRules.layerSplit(broken, par.layersPerStage(), stages, par.pp(), par.vp(), model.layers());
        LayoutRules.experts(broken, model, par.tp(), par.ep(), par.etp());
        LayoutRules.contextParallel(broken, par.cp(), training.seqLen());
        report(parSec, broken);
        if (cluster.gpus() != par.gpus()) {
            String where = given(clusterSec, "nodes") ? "nodes" : "gpusPerNode";
            clusterSec.error(where, "the cluster has " + cluster.gpus() + " GPUs (" + cluster.nodes() + " nodes x "
                    + cluster.gpusPerNode() + "), but the layout tp x cp x pp x dp uses " + par.gpus()
                    + "; expected them to be equal");
        }
        // a long: microBatch x dp overflows an int (2^24 x 256 is 0), and a 0 divides nothing
        long perStep = (long) training.microBatch() * par.dp();
        if (training.globalBatch() % perStep != 0) {
            trainSec.error("globalBatch", "found " + training.globalBatch()
                    + ", expected a multiple of training.microBatch x parallelism.dp (" + perStep + ")");
        } else {
            int m = (int) (training.globalBatch() / perStep);
            try {
                schedule.schedule(par.vp() == 0 ? 1 : par.vp()).validate(par.pp(), m);
            } catch (IllegalArgumentException e) {
                schedSec.error("kind", e.getMessage() + " (m = training.globalBatch / (microBatch x dp) = " + m + ")");
            }
        }
        List<LayoutRules.Violation> overlap = new ArrayList<>();
        LayoutRules.moeOverlap(overlap, par.overlapMoeExpertParallelComm(), par.ep(), par.pp(), schedule,
                training.recompute().cost());
        report(parSec, overlap);
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
        List<LayoutRules.Violation> broken = new ArrayList<>();
        LayoutRules.allToAll(broken, a, model, par.ep());
        report(parSec, broken);
        if (a == AllToAllAlgorithm.AUTO || !broken.isEmpty()) {
            return;
        }
        if (a == AllToAllAlgorithm.DIRECT || cluster.gpus() != par.gpus()) {
            return;
        }
        Mesh mesh = par.layout().mesh();
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

    /** Each broken layout rule as an error located at the field it concerns. */
    private static void report(Section s, List<LayoutRules.Violation> broken) {
        for (LayoutRules.Violation v : broken) {
            s.error(v.field(), v.message());
        }
    }

    /** Whether {@code key} is given a value: an empty value ({@code key:} or null) counts as absent. */
    private static boolean given(Section s, String key) {
        return s.node(key).isPresent();
    }

    private static String stem(Path file) {
        String f = file.getFileName().toString();
        int dot = f.lastIndexOf('.');
        return dot > 0 ? f.substring(0, dot) : f;
    }
}
