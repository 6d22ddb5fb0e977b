package org.clustersim.strategies.device;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.clustersim.core.input.Diagnostics;
import org.clustersim.core.input.Section;
import org.clustersim.core.input.SourceNode;

/**
 * Reads a device profile from a parsed YAML or JSON tree, checking every field: each problem is
 * recorded with its line, column and dotted path, and all of them are reported together. The
 * format is documented in docs/device-profiles.md.
 */
public final class DeviceProfileReader {
    private static final Map<String, AttentionImpl> IMPLS = keys(AttentionImpl.values());
    private static final Map<String, AttentionPass> PASSES = keys(AttentionPass.values());

    private final Diagnostics diagnostics;

    public DeviceProfileReader(Diagnostics diagnostics) {
        this.diagnostics = diagnostics;
    }

    /**
     * Reads the profile at {@code root}; {@code path} prefixes every field path in errors (empty
     * for a profile file of its own, {@code cluster.device} inside a scenario).
     *
     * @return the profile, or empty when an error was recorded
     */
    public Optional<DeviceProfile> read(SourceNode root, String path) {
        if (!(root instanceof SourceNode.MapNode map)) {
            diagnostics.error(root.location(), path, "found " + root.describe() + ", expected a device profile mapping");
            return Optional.empty();
        }
        Section s = new Section(diagnostics, path, map, map.location());
        int before = errorCount();
        Optional<String> name = s.text("name");
        if (name.isEmpty() && !s.has("name")) {
            s.error("name", "missing required value: expected the chip's name, e.g. h100-sxm");
        }
        String description = s.text("description").orElse("");
        Section peaks = s.section("peakTflops");
        double bf16 = required(peaks, "bf16", 1e-3, 1e6) * 1e12;
        double fp8 = peaks.optionalNumber("fp8", 0, 1e6).orElse(0.0) * 1e12;
        double int8 = peaks.optionalNumber("int8", 0, 1e6).orElse(0.0) * 1e12;
        double fp4 = peaks.optionalNumber("fp4", 0, 1e6).orElse(0.0) * 1e12;
        peaks.finish();
        Section mem = s.section("memory");
        double capacity = required(mem, "capacityGB", 1e-3, 1e6) * 1e9;
        double bandwidth = required(mem, "bandwidthTBps", 1e-3, 1e6) * 1e12;
        double stream = required(mem, "streamEfficiency", 1e-3, 1);
        mem.finish();
        Section gemm = s.section("gemm");
        GemmSurface bf16Gemm = gemmSurface(gemm, "bf16", bf16, bandwidth, 2, true);
        GemmSurface fp8Gemm = fp8 > 0 ? gemmSurface(gemm, "fp8", fp8, bandwidth, 1, true) : null;
        if (fp8 == 0 && gemm.has("fp8")) {
            gemm.error("fp8", "an fp8 GEMM surface needs peakTflops.fp8");
        }
        GemmSurface int8Gemm = int8 > 0 ? gemmSurface(gemm, "int8", int8, bandwidth, 1, true) : null;
        if (int8 == 0 && gemm.has("int8")) {
            gemm.error("int8", "an int8 GEMM surface needs peakTflops.int8");
        }
        GemmSurface mxfp8Gemm = fp8 > 0 ? gemmSurface(gemm, "mxfp8", fp8, bandwidth, 1 + 1.0 / 32, false) : null;
        if (fp8 == 0 && gemm.has("mxfp8")) {
            gemm.error("mxfp8", "an mxfp8 GEMM surface needs peakTflops.fp8");
        }
        GemmSurface nvfp4Gemm = fp4 > 0 ? gemmSurface(gemm, "nvfp4", fp4, bandwidth, 0.5 + 1.0 / 16, true) : null;
        if (fp4 == 0 && gemm.has("nvfp4")) {
            gemm.error("nvfp4", "an nvfp4 GEMM surface needs peakTflops.fp4");
        }
        gemm.finish();
        Section att = s.section("attention");
        AttentionImpl dflt = att.choice("default", AttentionImpl.STANDARD, IMPLS);
        List<AttentionCurve> curves = curves(att);
        AttentionRates rates = new AttentionRates(curves);
        if (dflt != AttentionImpl.STANDARD && !rates.covers(dflt)) {
            att.error("default", "found '" + dflt.key() + "', but attention.tables has no " + dflt.key() + " table");
        }
        att.finish();
        Section launchSec = s.section("launch");
        Launch launch = new Launch(required(launchSec, "hostUs", 0, 1e6) * 1e3,
                required(launchSec, "gapUs", 0, 1e6) * 1e3);
        launchSec.finish();
        KernelCounts kernels = kernels(s.section("kernels"));
        Section opt = s.section("optimizer");
        double adam = required(opt, "adamBandwidthFraction", 1e-3, 1);
        opt.finish();
        List<CollectiveMeasurement> collectives = collectives(s);
        CommKernels comm = s.has("communication") ? commKernels(s.section("communication")) : null;
        ShardingHooks sharding = ShardingHooks.NONE;
        if (s.has("sharding")) {
            Section sh = s.section("sharding");
            sharding = new ShardingHooks(required(sh, "deepspeedHookUs", 0, 1e6) * 1e3);
            sh.finish();
        }
        PowerLimit power = s.has("power") ? power(s.section("power")) : PowerLimit.NONE;
        double hostSync = 0;
        if (s.has("host")) {
            Section h = s.section("host");
            hostSync = required(h, "syncUs", 0, 1e6) * 1e3;
            h.finish();
        }
        s.finish();
        if (errorCount() > before || kernels == null) {
            return Optional.empty();
        }
        return Optional.of(new DeviceProfile(name.orElse(""), description, bf16, fp8, Math.round(capacity), bandwidth,
                stream, bf16Gemm, fp8Gemm, rates, dflt, launch, kernels, adam, collectives, comm, sharding, int8Gemm,
                mxfp8Gemm, nvfp4Gemm, power, hostSync));
    }

    /**
     * The {@code power} section: the board limit and the fraction of their short-burst rate that
     * compute-bound kernels sustain at it. A fraction of a tenth or less would be a GPU barely
     * running, not a power limit, so it is refused as a typo.
     */
    private PowerLimit power(Section p) {
        double limit = required(p, "limitW", 1, 1e5);
        double fraction = required(p, "sustainedComputeFraction", 0.1, 1);
        p.finish();
        return new PowerLimit(limit, fraction);
    }

    private int errorCount() {
        return diagnostics.errorCount();
    }

    private double required(Section s, String key, double min, double max) {
        if (!s.has(key)) {
            s.error(key, "missing required value: expected a number from " + plain(min) + " to " + plain(max));
            return min;
        }
        return s.optionalNumber(key, min, max).orElse(min);
    }

    private GemmSurface gemmSurface(Section gemm, String key, double peak, double bandwidth, double bytes,
                                    boolean required) {
        if (!gemm.has(key)) {
            if (required) {
                gemm.error(key, "missing required value: expected a GEMM surface (model and points)");
            }
            return null;
        }
        Section g = gemm.section(key);
        Section model = g.section("model");
        double best = required(model, "bestTflops", 1e-3, 1e6) * 1e12;
        double a = required(model, "computeFactor", 0, 1e3);
        double c = required(model, "memoryFactor", 0, 1e3);
        double t0 = required(model, "fixedUs", 0, 1e6) * 1e3;
        int tile = model.integer("mxuTile", 0, 0, 4096);
        if (best > peak) {
            model.error("bestTflops", "found " + plain(best / 1e12) + ", expected at most the peak (" + plain(peak / 1e12)
                    + ")");
        }
        model.finish();
        List<GemmSurface.Point> points = new ArrayList<>();
        for (double[] p : rows(g, "points", 4, "[m, n, k, TFLOP/s]")) {
            points.add(new GemmSurface.Point(p[0], p[1], p[2], p[3] * 1e12));
        }
        List<GemmSurface.GroupedPoint> grouped = new ArrayList<>();
        if (g.has("grouped")) {
            for (double[] p : rows(g, "grouped", 5, "[groups, m, n, k, TFLOP/s]")) {
                if (p[0] < 2 || p[0] != Math.rint(p[0])) {
                    g.error("grouped", "a grouped GEMM has a whole number of at least 2 groups, not " + plain(p[0]));
                    continue;
                }
                grouped.add(new GemmSurface.GroupedPoint((int) p[0], p[1], p[2], p[3], p[4] * 1e12));
            }
        }
        g.finish();
        return new GemmSurface(peak, bandwidth, bytes, best, a, c, t0, points, tile, grouped);
    }

    private List<AttentionCurve> curves(Section att) {
        List<AttentionCurve> out = new ArrayList<>();
        for (Section t : mappings(att, "tables", "a mapping with impl, pass, headDim, causal and points")) {
            int before = errorCount();
            AttentionImpl impl = t.choice("impl", null, IMPLS);
            AttentionPass pass = t.choice("pass", null, PASSES);
            if (!t.has("impl") || !t.has("pass")) {
                t.error(t.has("impl") ? "pass" : "impl", "missing required value");
            }
            int headDim = t.requiredInteger("headDim", 1, 4096).orElse(1);
            boolean causal = t.bool("causal", false);
            List<double[]> rows = rows(t, "points", 2, "[seqLen, TFLOP/s]");
            t.finish();
            if (errorCount() > before) {
                continue;
            }
            double[] s = new double[rows.size()];
            double[] r = new double[rows.size()];
            for (int j = 0; j < rows.size(); j++) {
                s[j] = rows.get(j)[0];
                r[j] = rows.get(j)[1] * 1e12;
                if (j > 0 && !(s[j] > s[j - 1])) {
                    t.error("points", "sequence lengths must ascend; found " + s[j] + " after " + s[j - 1]);
                    break;
                }
            }
            if (rows.isEmpty()) {
                t.error("points", "expected at least one [seqLen, TFLOP/s] point");
            }
            if (errorCount() == before) {
                out.add(new AttentionCurve(impl, pass, headDim, causal, s, r));
            }
        }
        return out;
    }

    /** A list of rows of positive numbers, each of the given width. */
    private List<double[]> rows(Section s, String key, int width, String shape) {
        List<double[]> out = new ArrayList<>();
        List<SourceNode> items = s.list(key);
        for (int i = 0; i < items.size(); i++) {
            SourceNode item = items.get(i);
            String at = s.pathOf(key) + "[" + i + "]";
            if (!(item instanceof SourceNode.ListNode l) || l.items().size() != width) {
                diagnostics.error(item.location(), at, "found " + item.describe() + ", expected " + shape);
                continue;
            }
            double[] row = new double[width];
            boolean ok = true;
            for (int j = 0; j < width; j++) {
                SourceNode v = l.items().get(j);
                if (v instanceof SourceNode.ScalarNode sc && (sc.kind() == SourceNode.ScalarKind.INTEGER
                        || sc.kind() == SourceNode.ScalarKind.DECIMAL) && Double.parseDouble(sc.text()) > 0) {
                    row[j] = Double.parseDouble(sc.text());
                } else {
                    diagnostics.error(v.location(), at + "[" + j + "]", "found " + v.describe()
                            + ", expected a positive number (" + shape + ")");
                    ok = false;
                }
            }
            if (ok) {
                out.add(row);
            }
        }
        return out;
    }

    private KernelCounts kernels(Section k) {
        Map<Op, int[]> counts = new EnumMap<>(Op.class);
        for (Op op : Op.values()) {
            if (!k.has(op.key())) {
                k.error(op.key(), "missing required value: expected [forward kernels, backward kernels]");
                continue;
            }
            Optional<int[]> c = k.integerList(op.key(), 0, 10_000);
            if (c.isPresent() && c.get().length != 2) {
                k.error(op.key(), "found " + c.get().length + " numbers, expected [forward kernels, backward kernels]");
            } else {
                c.ifPresent(v -> counts.put(op, v));
            }
        }
        k.finish();
        return counts.size() == Op.values().length ? new KernelCounts(counts) : null;
    }

    /**
     * A field older profiles carried: a per-chunk efficiency for TP overlap. Rejected with its
     * reason rather than ignored, so a profile that relied on it learns its results change.
     */
    static final String REMOVED_OVERLAP_FACTOR = "overlappedGemmEfficiency";

    private CommKernels commKernels(Section c) {
        int sms = c.requiredInteger("sms", 1, 100_000).orElse(1);
        CommKernels.Kernel nvlink = kernel(c.section("nvlink"), sms);
        CommKernels.Kernel network = kernel(c.section("network"), sms);
        CommKernels.Kernel p2p = kernel(c.section("p2p"), sms);
        if (c.has(REMOVED_OVERLAP_FACTOR)) {
            c.error(REMOVED_OVERLAP_FACTOR, "removed: tensor-parallel overlap (tpCommOverlap) is now costed from each"
                    + " GEMM chunk's shape and the SMs Transformer Engine's userbuffers take beside it; a blanket"
                    + " factor on top counted the same loss twice. Delete this line (docs/device-profiles.md)");
        }
        c.finish();
        return nvlink == null || network == null || p2p == null ? null
                : new CommKernels(sms, nvlink, network, p2p);
    }

    private CommKernels.Kernel kernel(Section k, int sms) {
        int before = errorCount();
        int used = k.requiredInteger("sms", 0, sms).orElse(0);
        double hbm = k.optionalNumber("hbmShare", 0, 0.5).orElse(0.0);
        k.finish();
        return errorCount() > before ? null : new CommKernels.Kernel(used, hbm);
    }

    private List<CollectiveMeasurement> collectives(Section s) {
        List<CollectiveMeasurement> out = new ArrayList<>();
        for (Section c : mappings(s, "collectives", "a mapping")) {
            String op = c.choice("op", "all_reduce", COLLECTIVE_OPS);
            String medium = c.choice("medium", "nvlink", Map.of("nvlink", "nvlink", "network", "network"));
            int ranks = c.requiredInteger("ranks", 2, 1 << 20).orElse(2);
            double latency = required(c, "latencyUs", 0, 1e9) * 1e3;
            double bus = required(c, "busBandwidthGBps", 1e-6, 1e9) * 1e9;
            c.finish();
            out.add(new CollectiveMeasurement(op, medium, ranks, latency, bus));
        }
        return out;
    }

    /** The items of list {@code key}, each a section of its own; an item that is not a mapping is reported. */
    private List<Section> mappings(Section s, String key, String expected) {
        List<Section> out = new ArrayList<>();
        List<SourceNode> items = s.list(key);
        for (int i = 0; i < items.size(); i++) {
            SourceNode item = items.get(i);
            String at = s.pathOf(key) + "[" + i + "]";
            if (item instanceof SourceNode.MapNode m) {
                out.add(new Section(diagnostics, at, m, m.location()));
            } else {
                diagnostics.error(item.location(), at, "found " + item.describe() + ", expected " + expected);
            }
        }
        return out;
    }

    private static final Map<String, String> COLLECTIVE_OPS = opNames("all_reduce", "all_gather", "reduce_scatter",
            "alltoall", "broadcast", "reduce", "sendrecv");

    private static Map<String, String> opNames(String... names) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String n : names) {
            m.put(n, n);
        }
        return m;
    }

    private static <E extends Enum<E>> Map<String, E> keys(E[] values) {
        Map<String, E> m = new LinkedHashMap<>();
        for (E e : values) {
            m.put(e.name().toLowerCase(java.util.Locale.ROOT), e);
        }
        return m;
    }

    /** A number as a person writes it: no ".0" on whole numbers. */
    private static String plain(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }
}
