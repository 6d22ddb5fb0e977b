package org.clustersim.topology;

import java.util.Arrays;
import java.util.Locale;

/**
 * TPU slices: chips on a 2D or 3D torus of ICI links (one link per direction per axis
 * neighbour, about 1 us per hop), grouped into hosts, and optionally several slices joined
 * through their hosts' NICs by a data-center network (DCN) switch layer.
 *
 * <p>Wraparound follows the published rules (JAX scaling book): v4 and v5p slices are built
 * from 4x4x4 cubes joined by optical switches, and an axis wraps around only when the slice is
 * made of whole cubes (every axis a multiple of 4); on v5e and v6e an axis wraps when it is 16
 * long. Chips route by dimension order, each axis in its shorter direction; traffic between
 * slices goes chip, host NIC, DCN switch, host NIC, chip.
 *
 * @param name           preset name
 * @param accelerator    chip model
 * @param dims           slice shape (2 or 3 axes)
 * @param chipsPerHost   chips sharing one host (and its DCN NIC)
 * @param iciBytesPerS   one-way bandwidth of one ICI link
 * @param iciHopNs       latency of one ICI hop
 * @param cubeWrap       true for v4/v5p rules (wrap when built of whole 4x4x4 cubes), false for v5e/v6e (wrap at 16)
 * @param slices         number of slices joined by DCN
 * @param dcnBytesPerS   per-host DCN bandwidth per direction
 * @param dcnLatencyNs   latency of each host-to-switch hop
 * @param dcnOversubscription ratio of host DCN capacity to switch capacity, at least 1
 * @param placement      physical chip (slice x chipsPerSlice + chip in slice) of each device number, or null for
 *                       the identity; a logical device mesh (JAX's {@code Mesh}) numbers the chips its own way,
 *                       and every other part of the simulator then works in that numbering
 */
public record TorusSpec(String name, AcceleratorSpec accelerator, int[] dims, int chipsPerHost, double iciBytesPerS,
                        long iciHopNs, boolean cubeWrap, int slices, double dcnBytesPerS, long dcnLatencyNs,
                        double dcnOversubscription, int[] placement) implements ClusterSpec {

    /** Chips numbered slice by slice, axis 0 fastest. */
    public TorusSpec(String name, AcceleratorSpec accelerator, int[] dims, int chipsPerHost, double iciBytesPerS,
                     long iciHopNs, boolean cubeWrap, int slices, double dcnBytesPerS, long dcnLatencyNs,
                     double dcnOversubscription) {
        this(name, accelerator, dims, chipsPerHost, iciBytesPerS, iciHopNs, cubeWrap, slices, dcnBytesPerS,
                dcnLatencyNs, dcnOversubscription, null);
    }

    public TorusSpec {
        dims = dims.clone();
        if (dims.length < 2 || dims.length > 3) {
            throw new IllegalArgumentException("a torus has 2 or 3 axes, got " + dims.length);
        }
        int chips = 1;
        for (int d : dims) {
            if (d < 1) {
                throw new IllegalArgumentException("torus axes must be at least 1 long");
            }
            chips *= d;
        }
        if (chipsPerHost < 1 || chips % chipsPerHost != 0) {
            throw new IllegalArgumentException(chips + " chips do not split into hosts of " + chipsPerHost);
        }
        if (slices < 1 || !(dcnOversubscription >= 1)) {
            throw new IllegalArgumentException("slices must be >= 1 and DCN oversubscription >= 1");
        }
        if (placement != null) {
            placement = placement.clone();
            boolean[] seen = new boolean[chips * slices];
            if (placement.length != seen.length) {
                throw new IllegalArgumentException("a placement names " + placement.length + " chips, the torus has "
                        + seen.length);
            }
            for (int p : placement) {
                if (p < 0 || p >= seen.length || seen[p]) {
                    throw new IllegalArgumentException("a placement must name every chip once; chip " + p);
                }
                seen[p] = true;
            }
        }
    }

    /** The same torus with devices numbered by {@code devicePlacement} (null: the identity). */
    public TorusSpec withPlacement(int[] devicePlacement) {
        return new TorusSpec(name, accelerator, dims, chipsPerHost, iciBytesPerS, iciHopNs, cubeWrap, slices,
                dcnBytesPerS, dcnLatencyNs, dcnOversubscription, devicePlacement);
    }

    /** The same torus with other link figures (ICI one-way per link, DCN per host). */
    public TorusSpec withLinks(double iciPerLink, double dcnPerHost) {
        return new TorusSpec(name, accelerator, dims, chipsPerHost, iciPerLink, iciHopNs, cubeWrap, slices,
                dcnPerHost, dcnLatencyNs, dcnOversubscription, placement);
    }

    /** The physical chip (slice x chipsPerSlice + chip in slice) of a device number. */
    public int physical(int device) {
        return placement == null ? device : placement[device];
    }

    /** The device number of a physical chip (the inverse of {@link #physical}). */
    public int deviceAt(int physicalChip) {
        if (placement == null) {
            return physicalChip;
        }
        int[] inverse = inverse();
        return inverse[physicalChip];
    }

    private int[] inverse() {
        int[] inv = inverseCache.get(placement);
        if (inv == null) {
            inv = new int[placement.length];
            for (int d = 0; d < placement.length; d++) {
                inv[placement[d]] = d;
            }
            inverseCache.put(placement, inv);
        }
        return inv;
    }

    private static final java.util.Map<int[], int[]> inverseCache =
            java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>()); // arrays compare by identity

    /**
     * TPU v4: 45 GB/s per ICI link one way (the scaling book's figure; Google publishes no per-chip
     * ICI total for v4), 3D torus, 4 chips per host, DCN 25 GB/s per host (uncertain: not published
     * for v4; v5p's figure).
     */
    public static TorusSpec v4(int x, int y, int z) {
        return new TorusSpec("tpu-v4-" + x + "x" + y + "x" + z, AcceleratorSpec.TPU_V4, new int[] {x, y, z}, 4, 45e9,
                1000, true, 1, 25e9, 2000, 1);
    }

    /**
     * TPU v5p: 100 GB/s per ICI link one way (1200 GB/s bidirectional per chip over 6 links), 3D
     * torus, 4 chips per host, DCN 50 Gbps per chip = 25 GB/s per host (Google Cloud's v5p page).
     */
    public static TorusSpec v5p(int x, int y, int z) {
        return new TorusSpec("tpu-v5p-" + x + "x" + y + "x" + z, AcceleratorSpec.TPU_V5P, new int[] {x, y, z}, 4,
                100e9, 1000, true, 1, 25e9, 2000, 1);
    }

    /**
     * TPU v5e: 50 GB/s per ICI link one way (400 GB/s bidirectional per chip over 4 ports), 2D
     * torus, 8 chips per host, DCN 2 x 100 Gbps NICs = 25 GB/s per host.
     */
    public static TorusSpec v5e(int x, int y) {
        return new TorusSpec("tpu-v5e-" + x + "x" + y, AcceleratorSpec.TPU_V5E, new int[] {x, y}, 8, 50e9, 1000, false,
                1, 25e9, 2000, 1);
    }

    /**
     * TPU v6e: 100 GB/s per ICI link one way (800 GB/s bidirectional per chip over 4 ports), 2D
     * torus, 8 chips per host, DCN 4 x 200 Gbps NICs = 100 GB/s per host.
     */
    public static TorusSpec v6e(int x, int y) {
        return new TorusSpec("tpu-v6e-" + x + "x" + y, AcceleratorSpec.TPU_V6E, new int[] {x, y}, 8, 100e9, 1000,
                false, 1, 100e9, 2000, 1);
    }

    /** The same slices, {@code n} of them joined by DCN. */
    public TorusSpec withSlices(int n) {
        return new TorusSpec(name + (n > 1 ? "-x" + n : ""), accelerator, dims, chipsPerHost, iciBytesPerS, iciHopNs,
                cubeWrap, n, dcnBytesPerS, dcnLatencyNs, dcnOversubscription, null);
    }

    /** Chips in one slice. */
    public int chipsPerSlice() {
        int c = 1;
        for (int d : dims) {
            c *= d;
        }
        return c;
    }

    @Override
    public int nodes() {
        return slices * chipsPerSlice() / chipsPerHost;
    }

    @Override
    public int gpusPerNode() {
        return chipsPerHost;
    }

    /** Whether axis {@code a} wraps around. */
    public boolean wraps(int a) {
        if (dims[a] < 3) {
            return false;
        }
        if (cubeWrap) {
            for (int d : dims) {
                if (d % 4 != 0) {
                    return false;
                }
            }
            return true;
        }
        return dims[a] == 16;
    }

    /** Coordinates of chip {@code c} within its slice (axis 0 fastest). */
    public int[] coords(int chipInSlice) {
        int[] out = new int[dims.length];
        int rest = chipInSlice;
        for (int a = 0; a < dims.length; a++) {
            out[a] = rest % dims[a];
            rest /= dims[a];
        }
        return out;
    }

    int index(int[] coords) {
        int idx = 0;
        for (int a = dims.length - 1; a >= 0; a--) {
            idx = idx * dims[a] + coords[a];
        }
        return idx;
    }

    @Override
    public String describe() {
        StringBuilder shape = new StringBuilder();
        for (int a = 0; a < dims.length; a++) {
            shape.append(a == 0 ? "" : "x").append(dims[a]).append(wraps(a) ? "(wrap)" : "");
        }
        return String.format(Locale.ROOT, "%s%s %s torus of %s, %.0f GB/s per ICI link, %d chips per host", slices > 1
                ? slices + " slices x " : "", shape, dims.length + "D", accelerator.name(), iciBytesPerS / 1e9,
                chipsPerHost) + (slices > 1 ? String.format(Locale.ROOT, ", DCN %.0f GB/s per host", dcnBytesPerS / 1e9)
                        : "");
    }

    @Override
    public Topology build() {
        Topology.Builder b = Topology.builder(name, accelerator);
        b.spec(this);
        b.tuning(CommTuning.TPU);
        int perSlice = chipsPerSlice();
        Vertex[][] chip = new Vertex[slices][perSlice];
        for (int d = 0; d < slices * perSlice; d++) {
            int p = physical(d);
            int s = p / perSlice;
            int c = p % perSlice;
            chip[s][c] = b.addVertex("slice" + s + ".chip" + Arrays.toString(coords(c)).replace(" ", ""),
                    VertexKind.ACCELERATOR, p / chipsPerHost);
        }
        for (int s = 0; s < slices; s++) {
            for (int c = 0; c < perSlice; c++) {
                int[] at = coords(c);
                for (int a = 0; a < dims.length; a++) {
                    if (dims[a] == 1) {
                        continue;
                    }
                    boolean last = at[a] == dims[a] - 1;
                    if (last && !wraps(a)) {
                        continue;
                    }
                    int[] next = at.clone();
                    next[a] = (at[a] + 1) % dims[a];
                    b.addDuplex(chip[s][c], chip[s][index(next)], LinkKind.ICI, iciBytesPerS, iciHopNs);
                }
            }
        }
        if (slices > 1) {
            Vertex dcn = b.addVertex("dcn", VertexKind.SWITCH, -1);
            for (int s = 0; s < slices; s++) {
                for (int h = 0; h < perSlice / chipsPerHost; h++) {
                    int host = (s * perSlice) / chipsPerHost + h;
                    Vertex nic = b.addVertex("host" + host + ".nic", VertexKind.NIC, host);
                    b.addDuplex(nic, dcn, LinkKind.DCN, dcnBytesPerS / dcnOversubscription, dcnLatencyNs);
                    for (int k = 0; k < chipsPerHost; k++) {
                        Vertex c = chip[s][h * chipsPerHost + k];
                        b.addDuplex(c, nic, LinkKind.GPU_NIC, dcnBytesPerS, 500);
                    }
                }
            }
        }
        TorusSpec spec = this;
        b.router((vertices, links, devices, graph) -> new TorusRouter(spec, graph.get(), devices));
        return b.build();
    }
}
