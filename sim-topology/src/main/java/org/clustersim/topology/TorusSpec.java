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
 * @param devicesPerChip 1, or 2 on TPU7x (Ironwood), whose chip holds two TensorCore chiplets that JAX sees as
 *                       two devices. Then each device is one chiplet: {@code dims[0]} is 2, the core axis
 *                       (JAX's {@code core_on_chip}, fastest in the device numbering as in {@code jax.devices()}),
 *                       {@code dims[1..]} are the chip axes x, y, z; the two chiplets of a chip are joined by the
 *                       on-package die-to-die link; "chips" in the other parameters and methods count devices
 *                       (chipsPerHost: devices per host, iciBytesPerS: one chiplet's share of a chip's link)
 * @param d2dBytesPerS   one-way bandwidth of the die-to-die link between the two chiplets (0 with one device
 *                       per chip)
 */
public record TorusSpec(String name, AcceleratorSpec accelerator, int[] dims, int chipsPerHost, double iciBytesPerS,
                        long iciHopNs, boolean cubeWrap, int slices, double dcnBytesPerS, long dcnLatencyNs,
                        double dcnOversubscription, int[] placement, int devicesPerChip, double d2dBytesPerS)
        implements ClusterSpec {

    /** One device per chip. */
    public TorusSpec(String name, AcceleratorSpec accelerator, int[] dims, int chipsPerHost, double iciBytesPerS,
                     long iciHopNs, boolean cubeWrap, int slices, double dcnBytesPerS, long dcnLatencyNs,
                     double dcnOversubscription, int[] placement) {
        this(name, accelerator, dims, chipsPerHost, iciBytesPerS, iciHopNs, cubeWrap, slices, dcnBytesPerS,
                dcnLatencyNs, dcnOversubscription, placement, 1, 0);
    }

    /** Chips numbered slice by slice, axis 0 fastest. */
    public TorusSpec(String name, AcceleratorSpec accelerator, int[] dims, int chipsPerHost, double iciBytesPerS,
                     long iciHopNs, boolean cubeWrap, int slices, double dcnBytesPerS, long dcnLatencyNs,
                     double dcnOversubscription) {
        this(name, accelerator, dims, chipsPerHost, iciBytesPerS, iciHopNs, cubeWrap, slices, dcnBytesPerS,
                dcnLatencyNs, dcnOversubscription, null);
    }

    public TorusSpec {
        dims = dims.clone();
        if (devicesPerChip != 1 && devicesPerChip != 2) {
            throw new IllegalArgumentException("a TPU chip is 1 or 2 devices, got " + devicesPerChip);
        }
        int chipAxes = dims.length - (devicesPerChip > 1 ? 1 : 0);
        if (chipAxes < 2 || chipAxes > 3) {
            throw new IllegalArgumentException("a torus has 2 or 3 axes, got " + chipAxes);
        }
        if (devicesPerChip > 1 && (dims[0] != devicesPerChip || !(d2dBytesPerS > 0))) {
            throw new IllegalArgumentException("a chip of " + devicesPerChip + " devices needs the core axis first "
                    + "and a die-to-die bandwidth");
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
                dcnBytesPerS, dcnLatencyNs, dcnOversubscription, devicePlacement, devicesPerChip, d2dBytesPerS);
    }

    /** The same torus with other link figures (ICI one-way per link, DCN per host). */
    public TorusSpec withLinks(double iciPerLink, double dcnPerHost) {
        return new TorusSpec(name, accelerator, dims, chipsPerHost, iciPerLink, iciHopNs, cubeWrap, slices,
                dcnPerHost, dcnLatencyNs, dcnOversubscription, placement, devicesPerChip, d2dBytesPerS);
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

    /**
     * TPU7x (Ironwood), an x by y by z slice of chips, each chip two TensorCore chiplets seen as two
     * JAX devices (Google Cloud's tpu7x page, "dual-chiplet architecture"), so 2xyz devices.
     * Published per chip: 1200 GB/s bidirectional ICI, a 3D torus built like v5p's (4x4x4 cubes
     * joined by optical switches, 9216-chip pods), 100 Gbps DCN, 4 chips per host. Assumed: 6
     * ICI links per chip as on v5p (Google does not publish the count), so 100 GB/s one way per
     * link, shared evenly by the chip's two chiplets (50 GB/s per chiplet link); the die-to-die
     * link 600 GB/s one way (uncertain: 6 times a 100 GB/s ICI link, from Google's remark that
     * the D2D interface is six times as fast as a 1D ICI link, not found in a stored source),
     * its hop as long as an ICI hop (uncertain).
     */
    public static TorusSpec tpu7x(int x, int y, int z) {
        return chiplets("tpu7x-" + x + "x" + y + "x" + z, AcceleratorSpec.TPU_7X, new int[] {x, y, z}, 4, 100e9,
                1000, true, 4 * 100e9 / 8, 2000, 600e9);
    }

    /**
     * A torus of two-chiplet chips, figures given per chip as for one-device chips; the chip
     * axes become {@code dims[1..]} behind a core axis of 2, hosts hold twice as many devices, and
     * each chiplet gets half of each chip link.
     *
     * @param chipDims     slice shape in chips
     * @param chipsPerHost chips per host
     * @param iciPerLink   one-way bandwidth of one chip-to-chip ICI link
     * @param dcnPerHost   DCN bandwidth per host
     * @param d2d          one-way bandwidth of the die-to-die link
     */
    public static TorusSpec chiplets(String name, AcceleratorSpec chiplet, int[] chipDims, int chipsPerHost,
                                     double iciPerLink, long hopNs, boolean cubeWrap, double dcnPerHost,
                                     long dcnLatencyNs, double d2d) {
        int[] dims = new int[chipDims.length + 1];
        dims[0] = 2;
        System.arraycopy(chipDims, 0, dims, 1, chipDims.length);
        return new TorusSpec(name, chiplet, dims, 2 * chipsPerHost, iciPerLink / 2, hopNs, cubeWrap, 1, dcnPerHost,
                dcnLatencyNs, 1, null, 2, d2d);
    }

    /** The slice shape in chips (without the core axis of a two-chiplet chip). */
    public int[] chipDims() {
        return devicesPerChip > 1 ? java.util.Arrays.copyOfRange(dims, 1, dims.length) : dims.clone();
    }

    /** Chips (not devices) per host. */
    public int hostChips() {
        return chipsPerHost / devicesPerChip;
    }

    /** One-way bandwidth of one chip-to-chip ICI link (both chiplets' shares where a chip is two devices). */
    public double chipLinkBytesPerS() {
        return iciBytesPerS * devicesPerChip;
    }

    /** Whether axis {@code a} is the core axis joining the chiplets of one chip. */
    public boolean coreAxis(int a) {
        return devicesPerChip > 1 && a == 0;
    }

    /** The same slices, {@code n} of them joined by DCN. */
    public TorusSpec withSlices(int n) {
        return new TorusSpec(name + (n > 1 ? "-x" + n : ""), accelerator, dims, chipsPerHost, iciBytesPerS, iciHopNs,
                cubeWrap, n, dcnBytesPerS, dcnLatencyNs, dcnOversubscription, null, devicesPerChip, d2dBytesPerS);
    }

    /** Devices in one slice (chips, or chiplets where a chip is two devices). */
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
        if (dims[a] < 3 || coreAxis(a)) {
            return false;
        }
        if (cubeWrap) {
            for (int d : chipDims()) {
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
        int first = devicesPerChip > 1 ? 1 : 0;
        for (int a = first; a < dims.length; a++) {
            shape.append(a == first ? "" : "x").append(dims[a]).append(wraps(a) ? "(wrap)" : "");
        }
        String chips = devicesPerChip > 1 ? String.format(Locale.ROOT, " chips, 2 TensorCore devices per chip "
                + "joined by a %.0f GB/s die-to-die link,", d2dBytesPerS / 1e9) : "";
        return String.format(Locale.ROOT, "%s%s %s torus of %s%s %.0f GB/s per ICI link, %d %s per host",
                slices > 1 ? slices + " slices x " : "", shape, (dims.length - first) + "D", accelerator.name(),
                chips, iciBytesPerS / 1e9, chipsPerHost, devicesPerChip > 1 ? "devices" : "chips") + (slices > 1 ? String.format(Locale.ROOT, ", DCN %.0f GB/s per host", dcnBytesPerS / 1e9)
                        : "");
    }

    /** {@code [x,y,z]}, or {@code [x,y,z].core1} for a chiplet. */
    private String vertexName(int[] at) {
        if (devicesPerChip == 1) {
            return Arrays.toString(at).replace(" ", "");
        }
        return Arrays.toString(Arrays.copyOfRange(at, 1, at.length)).replace(" ", "") + ".core" + at[0];
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
            chip[s][c] = b.addVertex("slice" + s + ".chip" + vertexName(coords(c)), VertexKind.ACCELERATOR,
                    p / chipsPerHost);
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
                    b.addDuplex(chip[s][c], chip[s][index(next)], LinkKind.ICI, coreAxis(a) ? d2dBytesPerS
                            : iciBytesPerS, iciHopNs);
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
