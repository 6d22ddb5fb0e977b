package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.clustersim.topology.TorusSpec;

/**
 * A JAX device mesh as MaxText builds it: logical axes ({@code data}, {@code fsdp},
 * {@code sequence}, {@code tensor}, {@code expert}, {@code pipeline}), each with a degree inside a
 * slice over ICI ({@code ici_*}) and across slices over DCN ({@code dcn_*}), and where each ICI
 * axis lies on the physical torus. It is another way to lay the per-dimension training parts
 * over chips, so it becomes the same {@link Mesh} the GPU path uses (tensor = TP, sequence = CP,
 * pipeline = PP, data x fsdp x expert = DP, expert = EP) plus a placement: which chip each mesh
 * device number is. Physical placement follows {@code jax.experimental.mesh_utils}' idea:
 * the innermost, most communication-heavy logical axes (tensor first) take whole physical axes
 * (or factors of one) so that their collectives run on torus rings.
 *
 * @param ici     degree of each logical axis inside a slice
 * @param dcn     degree of each logical axis across slices
 * @param mapping per ICI axis of degree above 1, its physical pieces, innermost first
 */
public record LogicalMesh(Map<Axis, Integer> ici, Map<Axis, Integer> dcn, Map<Axis, List<Piece>> mapping) {

    /** MaxText's logical mesh axes, innermost (most communication) first as placed. */
    public enum Axis {
        TENSOR("tensor"), SEQUENCE("sequence"), EXPERT("expert"), FSDP("fsdp"), DATA("data"), PIPELINE("pipeline");

        private final String id;

        Axis(String id) {
            this.id = id;
        }

        /** The name after {@code ici_} / {@code dcn_} in MaxText's {@code *_parallelism} settings. */
        public String id() {
            return id;
        }
    }

    /**
     * A factor of one physical torus axis given to a logical axis.
     *
     * @param axis   physical axis (0 = x, 1 = y, 2 = z)
     * @param factor how many coordinates along it the logical axis spans
     */
    public record Piece(int axis, int factor) {
        @Override
        public String toString() {
            return "xyz".charAt(axis) + (factor > 0 ? ":" + factor : "");
        }
    }

    public LogicalMesh {
        ici = new EnumMap<>(ici);
        dcn = new EnumMap<>(dcn);
        for (Axis a : Axis.values()) {
            ici.putIfAbsent(a, 1);
            dcn.putIfAbsent(a, 1);
        }
        Map<Axis, List<Piece>> m = new EnumMap<>(Axis.class);
        mapping.forEach((k, v) -> m.put(k, List.copyOf(v)));
        mapping = m;
    }

    /** Degree of an axis inside a slice. */
    public int ici(Axis a) {
        return ici.get(a);
    }

    /** Degree of an axis across slices. */
    public int dcn(Axis a) {
        return dcn.get(a);
    }

    /** Total degree of an axis. */
    public int size(Axis a) {
        return ici(a) * dcn(a);
    }

    /** Chips per slice the ICI axes occupy. */
    public int iciChips() {
        int n = 1;
        for (Axis a : Axis.values()) {
            n *= ici(a);
        }
        return n;
    }

    /** Slices the DCN axes occupy. */
    public int slices() {
        int n = 1;
        for (Axis a : Axis.values()) {
            n *= dcn(a);
        }
        return n;
    }

    /**
     * The default placement on a slice of shape {@code dims}: logical axes from the innermost
     * (tensor) out each take factors of the physical axes in order x, y, z, as much of each as
     * divides what is left of both.
     *
     * @throws IllegalArgumentException when the ICI degrees do not fill the slice exactly
     */
    public static Map<Axis, List<Piece>> defaultMapping(Map<Axis, Integer> ici, int[] dims) {
        int[] left = dims.clone();
        Map<Axis, List<Piece>> out = new EnumMap<>(Axis.class);
        for (Axis a : Axis.values()) {
            int n = ici.getOrDefault(a, 1);
            List<Piece> pieces = new ArrayList<>();
            for (int p = 0; p < dims.length && n > 1; p++) {
                int g = gcd(n, left[p]);
                if (g > 1) {
                    pieces.add(new Piece(p, g));
                    n /= g;
                    left[p] /= g;
                }
            }
            if (n > 1) {
                throw new IllegalArgumentException("ici_" + a.id() + " = " + ici.get(a) + " does not fit on what the "
                        + "inner axes leave of the slice; give cluster.meshMapping");
            }
            if (!pieces.isEmpty()) {
                out.put(a, pieces);
            }
        }
        for (int p = 0; p < dims.length; p++) {
            if (left[p] != 1) {
                throw new IllegalArgumentException("the ici_* degrees use " + (dims[p] / left[p]) + " of the "
                        + dims[p] + " chips along " + axisName(p, dims.length) + "; expected their product to fill the slice");
            }
        }
        return out;
    }

    /**
     * Checks an explicit mapping against the slice: each logical axis's pieces multiply to its
     * degree and every physical axis is split into pieces that multiply to its length.
     *
     * @return why not, or null when it fits
     */
    public static String check(Map<Axis, Integer> ici, Map<Axis, List<Piece>> mapping, int[] dims) {
        int[] used = new int[dims.length];
        java.util.Arrays.fill(used, 1);
        for (Axis a : Axis.values()) {
            int n = ici.getOrDefault(a, 1);
            List<Piece> pieces = mapping.getOrDefault(a, List.of());
            int product = 1;
            for (Piece p : pieces) {
                if (p.axis() >= dims.length) {
                    return a.id() + " names axis " + axisName(p.axis(), dims.length) + ", but the slice has " + dims.length
                            + " axes";
                }
                product *= p.factor();
                used[p.axis()] *= p.factor();
            }
            if (product != n) {
                return a.id() + " has degree " + n + " (ici_" + a.id() + "), but its physical axes "
                        + pieces + " span " + product + " chips";
            }
        }
        for (int p = 0; p < dims.length; p++) {
            if (used[p] != dims[p]) {
                return "axis " + axisName(p, dims.length) + " is " + dims[p] + " chips long, but the mapping spans " + used[p]
                        + " of it";
            }
        }
        return null;
    }

    /**
     * The training mesh: TP = tensor, CP = sequence, PP = pipeline, DP = expert x fsdp x data
     * (expert innermost, so an EP group is consecutive DP ranks; fsdp next, so the first
     * fsdp-many DP ranks are one FSDP shard group), pipeline outermost.
     */
    public Mesh mesh() {
        int dp = size(Axis.EXPERT) * size(Axis.FSDP) * size(Axis.DATA);
        return new Mesh(size(Axis.TENSOR), size(Axis.SEQUENCE), size(Axis.PIPELINE), dp, size(Axis.EXPERT),
                size(Axis.TENSOR), List.of(Mesh.Dim.TP, Mesh.Dim.CP, Mesh.Dim.DP, Mesh.Dim.PP));
    }

    /** Ranks ZeRO-3 shards over: the fsdp axis (inside and across slices); the data axis replicates. */
    public int shardGroup() {
        return size(Axis.FSDP);
    }

    /**
     * The physical chip (slice x chips per slice + chip in slice) of each device of {@link #mesh()}.
     *
     * @param torus the slice shape and slice count
     */
    public int[] placement(TorusSpec torus) {
        Mesh mesh = mesh();
        int[] dims = torus.dims();
        int per = torus.chipsPerSlice();
        int[] out = new int[mesh.gpus()];
        for (int d = 0; d < out.length; d++) {
            Mesh.Coordinates c = mesh.coordinates(d);
            Map<Axis, Integer> index = new EnumMap<>(Axis.class);
            index.put(Axis.TENSOR, c.tp());
            index.put(Axis.SEQUENCE, c.cp());
            index.put(Axis.PIPELINE, c.pp());
            int rest = c.dp();
            index.put(Axis.EXPERT, rest % size(Axis.EXPERT));
            rest /= size(Axis.EXPERT);
            index.put(Axis.FSDP, rest % size(Axis.FSDP));
            index.put(Axis.DATA, rest / size(Axis.FSDP));
            int[] coords = new int[dims.length];
            int[] stride = new int[dims.length];
            java.util.Arrays.fill(stride, 1);
            int slice = 0;
            int sliceStride = 1;
            for (Axis a : Axis.values()) {
                int i = index.get(a);
                int inside = i % ici(a);
                int across = i / ici(a);
                slice += across * sliceStride;
                sliceStride *= dcn(a);
                for (Piece p : mapping.getOrDefault(a, List.of())) {
                    coords[p.axis()] += (inside % p.factor()) * stride[p.axis()];
                    stride[p.axis()] *= p.factor();
                    inside /= p.factor();
                }
            }
            int chip = 0;
            for (int k = dims.length - 1; k >= 0; k--) {
                chip = chip * dims[k] + coords[k];
            }
            out[d] = slice * per + chip;
        }
        return out;
    }

    /** The mesh as MaxText's settings, e.g. {@code ici_fsdp=64 ici_tensor=8 dcn_data=2}. */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        for (Axis a : Axis.values()) {
            if (ici(a) > 1) {
                sb.append(sb.length() == 0 ? "" : " ").append("ici_").append(a.id()).append('=').append(ici(a))
                        .append(mapping.getOrDefault(a, List.of()).toString().toLowerCase(Locale.ROOT)
                                .replace(" ", ""));
            }
        }
        for (Axis a : Axis.values()) {
            if (dcn(a) > 1) {
                sb.append(sb.length() == 0 ? "" : " ").append("dcn_").append(a.id()).append('=').append(dcn(a));
            }
        }
        return sb.length() == 0 ? "one chip" : sb.toString();
    }

    /**
     * The name of physical axis {@code p} of a slice of {@code axes} axes: x, y, z; on a tpu7x
     * slice (four axes) c, the core axis of a chip's two devices, then x, y, z.
     */
    public static char axisName(int p, int axes) {
        return (axes == 4 ? "cxyz" : "xyz").charAt(p);
    }

    private static int gcd(int a, int b) {
        return b == 0 ? a : gcd(b, a % b);
    }
}
