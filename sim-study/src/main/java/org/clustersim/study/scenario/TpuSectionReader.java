package org.clustersim.study.scenario;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import org.clustersim.core.input.Section;
import org.clustersim.core.input.SourceNode;
import org.clustersim.strategies.cost.RecomputeModule;
import org.clustersim.strategies.device.DeviceProfile;
import org.clustersim.strategies.training.Layout;
import org.clustersim.strategies.training.LogicalMesh;
import org.clustersim.strategies.training.Mesh;
import org.clustersim.strategies.training.ShardingOptions;
import org.clustersim.strategies.training.XlaRemat;
import org.clustersim.topology.TorusSpec;

/**
 * The TPU parts of a scenario: {@code cluster.preset: tpu-v4 | tpu-v5p | tpu-v5e | tpu-v6e | tpu7x}
 * with {@code topology} in chips (such as {@code 8x8x8} or {@code 16x16}; a tpu7x chip is two
 * devices, its TensorCore chiplets, numbered core fastest as {@code jax.devices()} lists them, so
 * MaxText's {@code ici_*} degrees multiply to twice the chips), {@code slices} joined by DCN and
 * optional link figures; {@code parallelism.mesh} (MaxText's {@code ici_*} and {@code dcn_*}
 * degrees, {@code -1} filling the rest as in MaxText) with {@code parallelism.meshMapping}
 * (which physical torus axes each logical axis takes); and {@code training.remat} (MaxText's
 * remat policies). Kept apart from {@link ScenarioReader}, which calls it.
 */
final class TpuSectionReader {
    /** What a slice shape looks like, for messages. */
    private static final String SHAPE = "a slice shape: axis lengths joined by x, such as 8x8x8 (tpu-v4, tpu-v5p) or "
            + "16x16 (tpu-v5e, tpu-v6e)";

    private TpuSectionReader() {
    }

    /** The TPU preset names. */
    static Set<String> presets() {
        return ScenarioFields.TPU_PRESETS.keySet();
    }

    /** Whether the parallelism section lays out a JAX mesh (an empty value counts as none). */
    static boolean hasMesh(Section parallelism) {
        return parallelism.node(ScenarioFields.MESH.name()).isPresent();
    }

    /**
     * A GPU cluster's section: the TPU-only fields are read for their own errors and reported as
     * belonging to the TPU presets; a mesh is read the same way and reported by the caller.
     */
    static void gpuCluster(Section s, Section parSec) {
        for (Field f : ScenarioFields.TPU_CLUSTER_ONLY) {
            boolean given = f == ScenarioFields.TOPOLOGY ? f.text(s, SHAPE).isPresent() || s.node(f.name()).isPresent()
                    : f.check(s);
            if (given) {
                s.error(f.name(), "given with a GPU preset; " + f.name() + " describes TPU slices: expected "
                        + "cluster.preset " + String.join(", ", presets()) + ", or leave it out");
            }
        }
        mesh(parSec, null, false);
    }

    /** The TPU cluster as read, with the mesh placed on it. */
    record TpuCluster(TorusSpec torus, DeviceProfile device, Optional<LogicalMesh> mesh) {
    }

    /**
     * The cluster section of a TPU scenario: the torus (its devices numbered by {@code mesh}'s
     * placement when there is one) and the chip's device profile. Empty after reporting errors.
     *
     * @param profile reads {@code deviceProfile} / {@code deviceOverrides} for a chip name
     */
    static Optional<TpuCluster> cluster(Section s, String preset, Section parSec,
                                        Function<String, Optional<DeviceProfile>> profile) {
        TorusSpec base = ScenarioFields.TPU_PRESETS.get(preset);
        int axes = base.chipDims().length;
        int perChip = base.devicesPerChip();
        Optional<String> shapeText = ScenarioFields.TOPOLOGY.text(s, SHAPE);
        Optional<int[]> dims = shapeText.map(t -> shape(s, t, axes, base.cubeWrap()));
        if (s.node(ScenarioFields.TOPOLOGY.name()).isEmpty()) {
            s.error("topology", "a " + preset + " cluster is sized by its slice shape: expected cluster.topology, "
                    + (axes == 3 ? "such as 4x4x4 or 8x8x8" : "such as 8x16 or 16x16"));
        }
        int slices = ScenarioFields.SLICES.integer(s);
        int chipsPerHost = ScenarioFields.CHIPS_PER_HOST.integer(s, base.hostChips());
        double ici = ScenarioFields.ICI_BW.number(s).map(g -> g * 1e9).orElse(base.chipLinkBytesPerS());
        double dcnPerChip = ScenarioFields.DCN_BW.number(s).map(g -> g * 1e9)
                .orElse(base.dcnBytesPerS() / base.hostChips());
        Optional<DeviceProfile> device = profile.apply(base.accelerator().name());
        for (Field f : ScenarioFields.GPU_CLUSTER_ONLY) {
            if (f.check(s)) {
                s.error(f.name(), "given with a TPU preset, which is sized by cluster.topology and cluster.slices; "
                        + "leave " + f.name() + " out");
            }
        }
        if (dims.isEmpty() || dims.get() == null || device.isEmpty()) {
            mesh(parSec, null, perChip > 1);
            return Optional.empty();
        }
        int[] chipShape = dims.get();
        // the device grid: a tpu7x chip's two devices are a core axis of 2 ahead of x, y, z
        int[] shape = perChip > 1 ? withCoreAxis(chipShape) : chipShape;
        int perSlice = 1;
        for (int d : shape) {
            perSlice *= d;
        }
        Optional<LogicalMesh> mesh = mesh(parSec, new int[] {perSlice, slices}, perChip > 1)
                .map(m -> resolveWholeAxes(m, shape));
        if (hasMesh(parSec) && mesh.isEmpty()) {
            return Optional.empty();
        }
        TorusSpec torus;
        try {
            torus = perChip > 1
                    ? TorusSpec.chiplets(preset + "-" + text(chipShape), device.get().accelerator(), chipShape,
                            chipsPerHost, ici, base.iciHopNs(), base.cubeWrap(), dcnPerChip * chipsPerHost,
                            base.dcnLatencyNs(), base.d2dBytesPerS()).withSlices(slices)
                    : new TorusSpec(preset + "-" + text(shape), device.get().accelerator(), shape, chipsPerHost, ici,
                    base.iciHopNs(), base.cubeWrap(), 1, dcnPerChip * chipsPerHost, base.dcnLatencyNs(), 1)
                    .withSlices(slices);
        } catch (IllegalArgumentException e) {
            s.error("chipsPerHost", "found " + chipsPerHost + ": " + e.getMessage());
            return Optional.empty();
        }
        if (mesh.isPresent()) {
            LogicalMesh m = mesh.get();
            if (product(m.ici()) != torus.chipsPerSlice() || product(m.dcn()) != slices) {
                String unit = perChip > 1 ? " devices" : " chips";
                parSec.error("mesh", "the mesh's ici_* degrees multiply to " + product(m.ici()) + unit + " and its "
                        + "dcn_* degrees to " + product(m.dcn()) + " slices, but the cluster has " + torus.chipsPerSlice()
                        + unit + " per slice (" + text(chipShape) + (perChip > 1 ? " chips of 2 devices" : "")
                        + ") and " + slices + " slice(s); expected them equal");
                return Optional.empty();
            }
            Map<LogicalMesh.Axis, List<LogicalMesh.Piece>> mapping = m.mapping();
            if (mapping.isEmpty() && m.iciChips() > 1) {
                try {
                    mapping = LogicalMesh.defaultMapping(m.ici(), shape);
                } catch (IllegalArgumentException e) {
                    parSec.error("mesh", e.getMessage());
                    return Optional.empty();
                }
            } else {
                String why = LogicalMesh.check(m.ici(), mapping, shape);
                if (why != null) {
                    parSec.error("meshMapping", "found " + why + "; expected each logical axis's physical axes to "
                            + "multiply to its ici_* degree and to cover each physical axis of " + text(shape)
                            + (perChip > 1 ? " (c, the core axis of a chip's 2 devices, then x, y, z)" : ""));
                    return Optional.empty();
                }
            }
            LogicalMesh placed = new LogicalMesh(m.ici(), m.dcn(), mapping);
            torus = torus.withPlacement(placed.placement(torus));
            mesh = Optional.of(placed);
        }
        return Optional.of(new TpuCluster(torus, device.get(), mesh));
    }

    /**
     * {@code parallelism.mesh} and {@code parallelism.meshMapping}: the logical mesh, its
     * mapping as written (empty: the default, placed once the slice is known). Empty after
     * reporting errors or when there is no mesh.
     *
     * @param chips chips per slice and slices, to resolve -1 (null when the cluster is unknown)
     */
    private static Optional<LogicalMesh> mesh(Section par, int[] chips, boolean chiplets) {
        if (!hasMesh(par)) {
            ScenarioFields.MESH.section(par).finish();
            if (mapping(par, chiplets) != null && par.node(ScenarioFields.MESH_MAPPING.name()).isPresent()) {
                par.error("meshMapping", "given without parallelism.mesh; expected the logical mesh (ici_* and "
                        + "dcn_* degrees) it places");
            }
            return Optional.empty();
        }
        Section m = ScenarioFields.MESH.section(par);
        Map<LogicalMesh.Axis, Integer> ici = new EnumMap<>(LogicalMesh.Axis.class);
        Map<LogicalMesh.Axis, Integer> dcn = new EnumMap<>(LogicalMesh.Axis.class);
        boolean ok = true;
        ScenarioFields.MeshDegree iciFill = null;
        ScenarioFields.MeshDegree dcnFill = null;
        for (ScenarioFields.MeshDegree degree : ScenarioFields.MESH_DEGREES) {
            String key = degree.field().name();
            Optional<Integer> v = degree.field().degree(m);
            if (m.node(key).isEmpty()) {
                continue;
            }
            if (v.isEmpty()) {
                ok = false;
                continue;
            }
            LogicalMesh.Axis axis = degree.axis();
            boolean isIci = degree.ici();
            Map<LogicalMesh.Axis, Integer> into = isIci ? ici : dcn;
            if (into.containsKey(axis)) {
                m.error(key, "gives " + axis.id() + " a second time (sequence and context are one axis); give one");
                ok = false;
                continue;
            }
            if (v.get() == -1) {
                if ((isIci ? iciFill : dcnFill) != null) {
                    m.error(key, "found a second -1 (also " + (isIci ? iciFill : dcnFill).field().name()
                            + "); expected at most one "
                            + (isIci ? "ici_*" : "dcn_*") + " axis to fill the rest");
                    ok = false;
                    continue;
                }
                if (isIci) {
                    iciFill = degree;
                } else {
                    dcnFill = degree;
                }
            }
            into.put(axis, v.get());
        }
        m.finish();
        Map<LogicalMesh.Axis, List<LogicalMesh.Piece>> mapping = mapping(par, chiplets);
        if (!ok || mapping == null) {
            return Optional.empty();
        }
        if (chips != null) {
            ok &= fill(m, ici, iciFill, chips[0], "chips per slice");
            ok &= fill(m, dcn, dcnFill, chips[1], "slices");
        } else if (iciFill != null || dcnFill != null) {
            return Optional.empty();
        }
        return ok ? Optional.of(new LogicalMesh(ici, dcn, mapping)) : Optional.empty();
    }

    /** The product of the degrees, a -1 counting as 1 (in a long: seven degrees overflow an int). */
    private static long product(Map<LogicalMesh.Axis, Integer> degrees) {
        long n = 1;
        for (int d : degrees.values()) {
            n *= d == -1 ? 1 : d;
        }
        return n;
    }

    /** Resolves a -1 degree to what the other axes leave of {@code total}. */
    private static boolean fill(Section m, Map<LogicalMesh.Axis, Integer> degrees, ScenarioFields.MeshDegree degree,
                                int total, String what) {
        if (degree == null) {
            return true;
        }
        String key = degree.field().name();
        long others = product(degrees);
        if (others > total || total % others != 0) {
            m.error(key, "found -1, but the other axes' product " + others + " does not divide the " + total + " "
                    + what);
            return false;
        }
        degrees.put(degree.axis(), (int) (total / others));
        return true;
    }

    /**
     * {@code meshMapping}: logical axis to a list of physical axes ({@code x}, {@code y},
     * {@code z}, or {@code x:4}; on tpu7x also {@code c}, the core axis of a chip's two devices);
     * null after reporting errors.
     */
    private static Map<LogicalMesh.Axis, List<LogicalMesh.Piece>> mapping(Section par, boolean chiplets) {
        Map<LogicalMesh.Axis, List<LogicalMesh.Piece>> out = new EnumMap<>(LogicalMesh.Axis.class);
        Section s = ScenarioFields.MESH_MAPPING.section(par);
        boolean ok = true;
        for (Map.Entry<Field, LogicalMesh.Axis> e : ScenarioFields.MAPPED_AXES.entrySet()) {
            Field f = e.getKey();
            if (s.node(f.name()).isEmpty()) {
                f.textList(s);
                continue;
            }
            Optional<List<String>> items = f.textList(s);
            if (items.isEmpty()) {
                ok = false;
            } else if (out.containsKey(e.getValue())) {
                s.error(f.name(), "gives " + e.getValue().id() + " a second time (sequence and context are one "
                        + "axis); give one");
                ok = false;
            } else {
                List<String> texts = items.get();
                if (!chiplets && texts.stream().anyMatch(t -> t.strip().toLowerCase(Locale.ROOT).startsWith("c"))) {
                    s.error(f.name(), "names c, the core axis of a tpu7x chip's two devices; this slice's chips are "
                            + "one device each: expected x, y or z");
                    ok = false;
                    continue;
                }
                out.put(e.getValue(), texts.stream().map(t -> piece(t, chiplets)).toList());
            }
        }
        s.finish();
        return ok ? out : null;
    }

    /**
     * {@code x}, {@code y}, {@code z} (factor 0: the whole axis, settled later) or {@code x:4}; the
     * text has matched {@link ScenarioFields#PIECE}.
     */
    private static LogicalMesh.Piece piece(String text, boolean chiplets) {
        String[] parts = text.replaceAll("\\s", "").toLowerCase(Locale.ROOT).split(":");
        int axis = (chiplets ? "cxyz" : "xyz").indexOf(parts[0].charAt(0));
        return new LogicalMesh.Piece(axis, parts.length == 1 ? 0 : Integer.parseInt(parts[1]));
    }

    /** A mapping with whole-axis pieces (factor 0) given their lengths on {@code dims}. */
    static LogicalMesh resolveWholeAxes(LogicalMesh m, int[] dims) {
        Map<LogicalMesh.Axis, List<LogicalMesh.Piece>> out = new EnumMap<>(LogicalMesh.Axis.class);
        m.mapping().forEach((a, pieces) -> out.put(a, pieces.stream().map(p -> p.factor() > 0 || p.axis() >= dims.length
                ? p : new LogicalMesh.Piece(p.axis(), dims[p.axis()])).toList()));
        return new LogicalMesh(m.ici(), m.dcn(), out);
    }

    /**
     * The training layout a mesh stands for: TP = tensor, CP = sequence, PP = pipeline, DP =
     * expert x fsdp x data; ZeRO 3 sharded over the fsdp axis when it is above 1 (XLA's FSDP:
     * each layer's weights gathered a layer ahead, its gradients reduce-scattered during the
     * backward, Megatron-FSDP's double-buffered per-layer units being the same schedule); tensor
     * parallelism with sequence-sharded activations (XLA's all-gather / reduce-scatter form), run as a
     * collective matmul when {@code collectiveMatmul} is true.
     */
    static Scenario.Parallelism parallelism(Section par, LogicalMesh mesh, Scenario.Parallelism declared,
                                            boolean collectiveMatmul) {
        for (String k : List.of("tp", "pp", "dp", "cp", "ep", "etp", "zero", "shardGroup", "order")) {
            if (par.has(k)) {
                par.error(k, "given with parallelism.mesh; the mesh's ici_* and dcn_* degrees set the layout: leave "
                        + k + " out");
            }
        }
        Mesh m = mesh.mesh();
        int fsdp = mesh.shardGroup();
        if (fsdp > 1 && m.ep() > 1) {
            par.error("mesh", "found fsdp " + fsdp + " with expert " + m.ep() + "; sharding expert weights FSDP-style "
                    + "is not modelled: expected ici_fsdp and dcn_fsdp 1 with an expert axis (use data for the rest)");
        }
        int zero = fsdp > 1 ? 3 : 0;
        int shardGroup = fsdp > 1 && fsdp < m.dp() ? fsdp : 0;
        boolean tensor = m.tp() > 1;
        Layout layout = Layout.builder().layout(declared.layout()).mesh(m).zero(zero).shardGroup(shardGroup)
                .sharding(zero == 3 ? ShardingOptions.defaults() : declared.layout().zero().options()).sequenceParallel(tensor)
                .tpCommOverlap(tensor && collectiveMatmul)
                .dcnPipelined(ScenarioFields.DCN_PIPELINING.bool(par)).layout();
        return new Scenario.Parallelism(layout, declared.vp(), declared.layersPerStage(), false, false);
    }

    /**
     * A MaxText remat policy as the cost model's recomputation and as the tensors XLA keeps
     * ({@code memory}, used on a mesh).
     */
    record Remat(Scenario.Recompute recompute, Set<RecomputeModule> modules, XlaRemat memory) {
    }

    /**
     * {@code training.remat}: MaxText's policy names ({@link ScenarioFields#REMAT}), e.g.
     * {@code full} (only layer inputs kept), {@code minimal} (every weight matmul's output kept,
     * attention's dots recomputed), {@code save_qkv_proj} (only q, k, v kept),
     * {@code qkv_proj_offloaded} (q, k, v in host memory), {@code none} (everything kept).
     */
    static Optional<Remat> remat(Section train) {
        Remat r = ScenarioFields.REMAT.choice(train);
        if (r != null && (train.node("recompute").isPresent() || train.node("recomputeModules").isPresent())) {
            train.error("remat", "given with training.recompute" + (train.node("recomputeModules").isPresent()
                    ? "Modules" : "") + "; give only one of the two (remat is MaxText's name for the same choice)");
        }
        boolean tensorsGiven = train.node(ScenarioFields.REMAT_TENSORS.name()).isPresent();
        Section tensors = ScenarioFields.REMAT_TENSORS.section(train);
        Set<XlaRemat.Tensor> device = java.util.EnumSet.noneOf(XlaRemat.Tensor.class);
        Set<XlaRemat.Tensor> host = java.util.EnumSet.noneOf(XlaRemat.Tensor.class);
        for (Map.Entry<Field, XlaRemat.Tensor> e : ScenarioFields.REMAT_TENSOR_FIELDS.entrySet()) {
            ScenarioFields.TensorPlace place = e.getKey().choice(tensors);
            if (place == ScenarioFields.TensorPlace.DEVICE) {
                device.add(e.getValue());
            } else if (place == ScenarioFields.TensorPlace.OFFLOAD) {
                host.add(e.getValue());
            }
        }
        tensors.finish();
        boolean custom = r != null && r.memory() == null;
        if (tensorsGiven && !custom) {
            train.error("rematTensors", "given without training.remat: custom; expected remat: custom with the "
                    + "tensors' places, or leave rematTensors out");
        }
        if (custom) {
            XlaRemat memory = XlaRemat.custom(device, host);
            r = new Remat(customRecompute(memory), customModules(memory), memory);
        }
        return Optional.ofNullable(r);
    }

    /** The replay a custom policy costs as: what it keeps (on the device or the host) decides. */
    private static Scenario.Recompute customRecompute(XlaRemat p) {
        Set<XlaRemat.Tensor> kept = kept(p);
        if (kept.containsAll(EnumSet.allOf(XlaRemat.Tensor.class))) {
            return Scenario.Recompute.NONE;
        }
        return kept.containsAll(Set.of(XlaRemat.Tensor.QUERY_PROJ, XlaRemat.Tensor.KEY_PROJ,
                XlaRemat.Tensor.VALUE_PROJ)) ? Scenario.Recompute.SELECTIVE : Scenario.Recompute.FULL;
    }

    /**
     * Under a custom policy that keeps q, k and v: the attention core replayed unless the context
     * is kept, the MLP unless its matmul outputs are, the norms unless the output projection is
     * (the pre-MLP norm's input is rebuilt from it).
     */
    private static Set<RecomputeModule> customModules(XlaRemat p) {
        if (customRecompute(p) != Scenario.Recompute.SELECTIVE) {
            return Set.of();
        }
        Set<XlaRemat.Tensor> kept = kept(p);
        Set<RecomputeModule> m = EnumSet.noneOf(RecomputeModule.class);
        if (!kept.contains(XlaRemat.Tensor.CONTEXT)) {
            m.add(RecomputeModule.CORE_ATTN);
        }
        if (!kept.containsAll(Set.of(XlaRemat.Tensor.MLPWI, XlaRemat.Tensor.MLPWO))) {
            m.add(RecomputeModule.MLP);
        }
        if (!kept.contains(XlaRemat.Tensor.OUT_PROJ)) {
            m.add(RecomputeModule.LAYERNORM);
        }
        return m.isEmpty() ? Set.of(RecomputeModule.CORE_ATTN) : m;
    }

    private static Set<XlaRemat.Tensor> kept(XlaRemat p) {
        Set<XlaRemat.Tensor> kept = EnumSet.noneOf(XlaRemat.Tensor.class);
        kept.addAll(p.device());
        kept.addAll(p.host());
        return kept;
    }

    /**
     * The policy XLA keeps memory by on a mesh: {@code training.remat} as given, or else the
     * recomputation read as the MaxText policy doing the same (full: {@code full}; selective:
     * {@code minimal}, whose replay is the attention core; none: {@code none}).
     */
    static XlaRemat xlaRemat(Scenario.Training training) {
        if (training.xlaRemat() != null) {
            return training.xlaRemat();
        }
        return switch (training.recompute()) {
            case FULL -> XlaRemat.full();
            case SELECTIVE -> XlaRemat.named("minimal");
            case NONE -> XlaRemat.none();
        };
    }

    /**
     * {@code parallelism.collectiveMatmul}, which runs the mesh's tensor axis: reported when given
     * without a mesh (as is {@code dcnAllReducePipelining}, which schedules its dcn_ axes).
     */
    static boolean collectiveMatmul(Section par) {
        boolean on = ScenarioFields.COLLECTIVE_MATMUL.bool(par);
        if (par.node(ScenarioFields.COLLECTIVE_MATMUL.name()).isPresent() && !hasMesh(par)) {
            par.error("collectiveMatmul", "given without parallelism.mesh; expected the mesh whose tensor axis it "
                    + "runs (on GPUs, tpCommOverlap overlaps tensor-parallel communication)");
        }
        // read with the mesh's other XLA choice: the cross-slice reductions' schedule needs a mesh too
        if (par.node(ScenarioFields.DCN_PIPELINING.name()).isPresent() && !hasMesh(par)) {
            par.error(ScenarioFields.DCN_PIPELINING.name(), "given without parallelism.mesh; expected the mesh whose "
                    + "dcn_ axes it schedules (on GPUs, overlapGradReduce launches the gradient reductions)");
        }
        return on;
    }

    /** The axis lengths of a shape that matched {@link ScenarioFields#SHAPE}; null after reporting a misfit. */
    private static int[] shape(Section s, String text, int axes, boolean cube) {
        String[] parts = text.replaceAll("\\s", "").toLowerCase(Locale.ROOT).split("x");
        int[] dims = new int[parts.length];
        long chips = 1;
        for (int i = 0; i < parts.length; i++) {
            dims[i] = Integer.parseInt(parts[i]);
            chips *= dims[i];
        }
        if (dims.length != axes) {
            s.error("topology", "found " + dims.length + " axes in '" + text + "'; this chip's slices are " + axes
                    + "D tori (" + (axes == 3 ? "such as 8x8x8" : "such as 16x16") + ")");
            return null;
        }
        if (chips > ScenarioFields.MAX_COUNT) {
            s.error("topology", "found '" + text + "', " + chips + " chips; a slice here has at most "
                    + ScenarioFields.MAX_COUNT + " chips");
            return null;
        }
        if (!cube) {
            for (int d : dims) {
                if (d > 16) {
                    s.error("topology", "found '" + text + "'; a v5e or v6e slice is at most 16x16 (256 chips): join "
                            + "more with cluster.slices");
                    return null;
                }
            }
        }
        return dims;
    }

    /** A chip shape with the core axis of a chip's two devices put first. */
    private static int[] withCoreAxis(int[] chipShape) {
        int[] out = new int[chipShape.length + 1];
        out[0] = 2;
        System.arraycopy(chipShape, 0, out, 1, chipShape.length);
        return out;
    }

    private static String text(int[] dims) {
        StringBuilder sb = new StringBuilder();
        for (int d : dims) {
            sb.append(sb.length() == 0 ? "" : "x").append(d);
        }
        return sb.toString();
    }
}
