package org.clustersim.cli.scenario;

import java.util.ArrayList;
import java.util.EnumMap;
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
import org.clustersim.strategies.training.LogicalMesh;
import org.clustersim.strategies.training.Mesh;
import org.clustersim.strategies.training.ShardingOptions;
import org.clustersim.topology.TorusSpec;

/**
 * The TPU parts of a scenario: {@code cluster.preset: tpu-v4 | tpu-v5p | tpu-v5e | tpu-v6e} with
 * {@code topology} (such as {@code 8x8x8} or {@code 16x16}), {@code slices} joined by DCN and
 * optional link figures; {@code parallelism.mesh} (MaxText's {@code ici_*} and {@code dcn_*}
 * degrees, {@code -1} filling the rest as in MaxText) with {@code parallelism.meshMapping}
 * (which physical torus axes each logical axis takes); and {@code training.remat} (MaxText's
 * remat policies). Kept apart from {@link ScenarioReader}, which calls it.
 */
final class TpuSectionReader {
    /** The TPU presets: chip generation to its slice builder's figures. */
    private static final Map<String, TorusSpec> PRESETS = new LinkedHashMap<>();

    static {
        PRESETS.put("tpu-v4", TorusSpec.v4(4, 4, 4));
        PRESETS.put("tpu-v5p", TorusSpec.v5p(4, 4, 4));
        PRESETS.put("tpu-v5e", TorusSpec.v5e(16, 16));
        PRESETS.put("tpu-v6e", TorusSpec.v6e(16, 16));
    }

    private static final List<String> MESH_KEYS = meshKeys();

    private TpuSectionReader() {
    }

    /** The TPU preset names. */
    static Set<String> presets() {
        return PRESETS.keySet();
    }

    /** Whether the cluster section names a TPU preset. */
    static boolean isTpu(Section cluster) {
        return cluster.node("preset").filter(n -> n instanceof SourceNode.ScalarNode s
                && s.text().toLowerCase(Locale.ROOT).startsWith("tpu")).isPresent();
    }

    /** Whether the parallelism section lays out a JAX mesh. */
    static boolean hasMesh(Section parallelism) {
        return parallelism.has("mesh");
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
    static Optional<TpuCluster> cluster(Section s, Section parSec, Function<String, Optional<DeviceProfile>> profile) {
        Map<String, String> names = new LinkedHashMap<>();
        PRESETS.keySet().forEach(k -> names.put(k, k));
        String preset = s.choice("preset", null, names);
        if (preset == null) {
            s.text("topology");
            s.node("slices");
            for (String k : List.of("chipsPerHost", "iciBandwidthGBps", "dcnBandwidthGBpsPerChip", "deviceProfile",
                    "deviceOverrides")) {
                s.node(k);
            }
            mesh(parSec, null);
            return Optional.empty();
        }
        TorusSpec base = PRESETS.get(preset);
        int axes = base.dims().length;
        Optional<int[]> dims = s.text("topology").map(t -> shape(s, t, axes, base.cubeWrap()));
        if (!s.has("topology")) {
            s.error("topology", "missing required value: expected the slice shape, " + (axes == 3
                    ? "such as 4x4x4 or 8x8x8" : "such as 8x16 or 16x16"));
        }
        int slices = s.integer("slices", 1, 1, 1 << 12);
        int chipsPerHost = s.integer("chipsPerHost", base.chipsPerHost(), 1, 64);
        double ici = s.optionalNumber("iciBandwidthGBps", 1e-3, 1e6).map(g -> g * 1e9).orElse(base.iciBytesPerS());
        double dcnPerChip = s.optionalNumber("dcnBandwidthGBpsPerChip", 1e-3, 1e6).map(g -> g * 1e9)
                .orElse(base.dcnBytesPerS() / base.chipsPerHost());
        Optional<DeviceProfile> device = profile.apply(base.accelerator().name());
        if (s.has("nodes") || s.has("gpusPerNode") || s.has("fabric")) {
            String k = s.has("nodes") ? "nodes" : s.has("gpusPerNode") ? "gpusPerNode" : "fabric";
            s.error(k, "a TPU cluster is sized by cluster.topology and cluster.slices; leave " + k + " out");
        }
        if (dims.isEmpty() || dims.get() == null || device.isEmpty()) {
            mesh(parSec, null);
            return Optional.empty();
        }
        int[] shape = dims.get();
        int perSlice = 1;
        for (int d : shape) {
            perSlice *= d;
        }
        Optional<LogicalMesh> mesh = mesh(parSec, new int[] {perSlice, slices}).map(m -> resolveWholeAxes(m, shape));
        if (hasMesh(parSec) && mesh.isEmpty()) {
            return Optional.empty();
        }
        TorusSpec torus;
        try {
            torus = new TorusSpec(preset + "-" + text(shape), device.get().accelerator(), shape, chipsPerHost, ici,
                    base.iciHopNs(), base.cubeWrap(), 1, dcnPerChip * chipsPerHost, base.dcnLatencyNs(), 1)
                    .withSlices(slices);
        } catch (IllegalArgumentException e) {
            s.error("chipsPerHost", "found " + chipsPerHost + ": " + e.getMessage());
            return Optional.empty();
        }
        if (mesh.isPresent()) {
            LogicalMesh m = mesh.get();
            if (m.iciChips() != torus.chipsPerSlice() || m.slices() != slices) {
                parSec.error("mesh", "the mesh's ici_* degrees multiply to " + m.iciChips() + " chips and its dcn_* "
                        + "degrees to " + m.slices() + " slices, but the cluster has " + torus.chipsPerSlice()
                        + " chips per slice (" + text(shape) + ") and " + slices + " slice(s); expected them equal");
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
                            + "multiply to its ici_* degree and to cover each physical axis of " + text(shape));
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
    private static Optional<LogicalMesh> mesh(Section par, int[] chips) {
        if (!par.has("mesh")) {
            par.node("meshMapping").ifPresent(n -> par.error("meshMapping", "given without parallelism.mesh; "
                    + "expected the logical mesh (ici_* and dcn_* degrees) it places"));
            return Optional.empty();
        }
        Section m = par.section("mesh");
        Map<LogicalMesh.Axis, Integer> ici = new EnumMap<>(LogicalMesh.Axis.class);
        Map<LogicalMesh.Axis, Integer> dcn = new EnumMap<>(LogicalMesh.Axis.class);
        boolean ok = true;
        String iciFill = null;
        String dcnFill = null;
        for (String key : MESH_KEYS) {
            if (!m.has(key)) {
                continue;
            }
            LogicalMesh.Axis axis = axisOf(key);
            boolean isIci = key.startsWith("ici_");
            Map<LogicalMesh.Axis, Integer> into = isIci ? ici : dcn;
            if (into.containsKey(axis)) {
                m.error(key, "gives " + axis.id() + " a second time (sequence and context are one axis); give one");
                ok = false;
                continue;
            }
            Optional<Integer> v = m.optionalInteger(key, -1, 1 << 20);
            if (v.isEmpty()) {
                ok = false;
                continue;
            }
            if (v.get() == 0) {
                m.error(key, "found 0; expected a degree of at least 1, or -1 for what the other axes leave");
                ok = false;
                continue;
            }
            if (v.get() == -1) {
                if ((isIci ? iciFill : dcnFill) != null) {
                    m.error(key, "found a second -1 (also " + (isIci ? iciFill : dcnFill) + "); expected at most one "
                            + (isIci ? "ici_*" : "dcn_*") + " axis to fill the rest");
                    ok = false;
                    continue;
                }
                if (isIci) {
                    iciFill = key;
                } else {
                    dcnFill = key;
                }
            }
            into.put(axis, v.get());
        }
        m.finish();
        Map<LogicalMesh.Axis, List<LogicalMesh.Piece>> mapping = mapping(par);
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

    /** Resolves a -1 degree to what the other axes leave of {@code total}. */
    private static boolean fill(Section m, Map<LogicalMesh.Axis, Integer> degrees, String key, int total,
                                String what) {
        if (key == null) {
            return true;
        }
        int others = 1;
        for (Map.Entry<LogicalMesh.Axis, Integer> e : degrees.entrySet()) {
            others *= e.getValue() == -1 ? 1 : e.getValue();
        }
        if (total % others != 0) {
            m.error(key, "found -1, but the other axes' product " + others + " does not divide the " + total + " "
                    + what);
            return false;
        }
        degrees.put(axisOf(key), total / others);
        return true;
    }

    /** {@code meshMapping}: logical axis to a list of physical axes ({@code x}, {@code y}, {@code z}, or {@code x:4}). */
    private static Map<LogicalMesh.Axis, List<LogicalMesh.Piece>> mapping(Section par) {
        Map<LogicalMesh.Axis, List<LogicalMesh.Piece>> out = new EnumMap<>(LogicalMesh.Axis.class);
        if (!par.has("meshMapping")) {
            return out;
        }
        Section s = par.section("meshMapping");
        boolean ok = true;
        for (LogicalMesh.Axis axis : LogicalMesh.Axis.values()) {
            for (String key : axis == LogicalMesh.Axis.SEQUENCE ? List.of("sequence", "context") : List.of(axis.id())) {
                if (!s.has(key)) {
                    continue;
                }
                List<SourceNode> items = s.list(key);
                List<LogicalMesh.Piece> pieces = new ArrayList<>();
                for (int i = 0; i < items.size(); i++) {
                    SourceNode item = items.get(i);
                    LogicalMesh.Piece p = item instanceof SourceNode.ScalarNode sc ? piece(sc.text()) : null;
                    if (p == null) {
                        s.diagnostics().error(item.location(), s.pathOf(key) + "[" + i + "]", "found "
                                + item.describe() + "; expected a physical axis x, y or z, or a factor of one such "
                                + "as x:4");
                        ok = false;
                    } else {
                        pieces.add(p);
                    }
                }
                out.put(axis, pieces);
            }
        }
        s.finish();
        return ok ? out : null;
    }

    /** {@code x}, {@code y}, {@code z} (factor 0: the whole axis, settled later) or {@code x:4}. */
    private static LogicalMesh.Piece piece(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        String[] parts = t.split(":");
        if (parts.length > 2 || parts[0].length() != 1 || "xyz".indexOf(parts[0].charAt(0)) < 0) {
            return null;
        }
        int axis = "xyz".indexOf(parts[0].charAt(0));
        if (parts.length == 1) {
            return new LogicalMesh.Piece(axis, 0);
        }
        try {
            int f = Integer.parseInt(parts[1].trim());
            return f >= 1 ? new LogicalMesh.Piece(axis, f) : null;
        } catch (NumberFormatException e) {
            return null;
        }
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
    static Scenario.Parallelism parallelism(Section par, LogicalMesh mesh, Scenario.Parallelism declared) {
        for (String k : List.of("tp", "pp", "dp", "cp", "ep", "etp", "zero", "shardGroup", "order")) {
            if (par.has(k)) {
                par.error(k, "given with parallelism.mesh; the mesh's ici_* and dcn_* degrees set the layout: leave "
                        + k + " out");
            }
        }
        boolean collectiveMatmul = par.bool("collectiveMatmul", true);
        Mesh m = mesh.mesh();
        int fsdp = mesh.shardGroup();
        if (fsdp > 1 && m.ep() > 1) {
            par.error("mesh", "found fsdp " + fsdp + " with expert " + m.ep() + "; sharding expert weights FSDP-style "
                    + "is not modelled: expected ici_fsdp and dcn_fsdp 1 with an expert axis (use data for the rest)");
        }
        int zero = fsdp > 1 ? 3 : 0;
        int shardGroup = fsdp > 1 && fsdp < m.dp() ? fsdp : 0;
        boolean tensor = m.tp() > 1;
        return new Scenario.Parallelism(m.tp(), m.pp(), m.dp(), m.cp(), m.ep(), m.etp(), declared.vp(), zero,
                tensor, declared.overlapGradReduce(), declared.gradBucketBytes(), declared.layersPerStage(), shardGroup,
                declared.cpVariant(), m.order(), zero == 3 ? ShardingOptions.defaults() : declared.sharding(),
                tensor && collectiveMatmul, false, false, declared.allToAll());
    }

    /** MaxText's remat policies as the cost model's recomputation. */
    record Remat(Scenario.Recompute recompute, Set<RecomputeModule> modules) {
    }

    /**
     * {@code training.remat}: {@code full} (only layer inputs kept), {@code minimal} (every
     * weight matmul's output kept, attention's dots recomputed), {@code save_dot_except_mlpwi}
     * (also the MLP's input projection recomputed), {@code save_qkv_proj} (only q, k, v kept),
     * {@code none} (everything kept).
     */
    static Optional<Remat> remat(Section train) {
        Map<String, Remat> policies = new LinkedHashMap<>();
        policies.put("full", new Remat(Scenario.Recompute.FULL, Set.of()));
        policies.put("minimal", new Remat(Scenario.Recompute.SELECTIVE, Set.of(RecomputeModule.CORE_ATTN)));
        Remat exceptMlp = new Remat(Scenario.Recompute.SELECTIVE, Set.of(RecomputeModule.CORE_ATTN,
                RecomputeModule.MLP));
        policies.put("save_dot_except_mlpwi", exceptMlp);
        policies.put("save_dot_except_mlp", exceptMlp);
        policies.put("save_qkv_proj", new Remat(Scenario.Recompute.SELECTIVE, Set.of(RecomputeModule.CORE_ATTN,
                RecomputeModule.MLP, RecomputeModule.LAYERNORM)));
        policies.put("none", new Remat(Scenario.Recompute.NONE, Set.of()));
        if (!train.has("remat")) {
            return Optional.empty();
        }
        Remat r = train.choice("remat", null, policies);
        if (r != null && (train.has("recompute") || train.has("recomputeModules"))) {
            train.error("remat", "given with training.recompute" + (train.has("recomputeModules") ? "Modules" : "")
                    + "; expected one of them (remat is MaxText's name for the same choice)");
        }
        return Optional.ofNullable(r);
    }

    private static int[] shape(Section s, String text, int axes, boolean cube) {
        String[] parts = text.trim().toLowerCase(Locale.ROOT).split("x");
        int[] dims = new int[parts.length];
        try {
            for (int i = 0; i < parts.length; i++) {
                dims[i] = Integer.parseInt(parts[i].trim());
                if (dims[i] < 1 || dims[i] > 4096) {
                    throw new NumberFormatException();
                }
            }
        } catch (NumberFormatException e) {
            s.error("topology", "found '" + text + "'; expected " + axes + " axis lengths joined by x, such as "
                    + (axes == 3 ? "8x8x8" : "16x16"));
            return null;
        }
        if (dims.length != axes) {
            s.error("topology", "found " + dims.length + " axes in '" + text + "'; this chip's slices are " + axes
                    + "D tori (" + (axes == 3 ? "such as 8x8x8" : "such as 16x16") + ")");
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

    private static String text(int[] dims) {
        StringBuilder sb = new StringBuilder();
        for (int d : dims) {
            sb.append(sb.length() == 0 ? "" : "x").append(d);
        }
        return sb.toString();
    }

    private static LogicalMesh.Axis axisOf(String key) {
        String name = key.substring(4);
        return name.equals("context") ? LogicalMesh.Axis.SEQUENCE : LogicalMesh.Axis.valueOf(
                name.toUpperCase(Locale.ROOT));
    }

    private static List<String> meshKeys() {
        List<String> keys = new ArrayList<>();
        for (String prefix : List.of("ici_", "dcn_")) {
            for (LogicalMesh.Axis a : LogicalMesh.Axis.values()) {
                keys.add(prefix + a.id());
                if (a == LogicalMesh.Axis.SEQUENCE) {
                    keys.add(prefix + "context");
                }
            }
        }
        return keys;
    }
}
