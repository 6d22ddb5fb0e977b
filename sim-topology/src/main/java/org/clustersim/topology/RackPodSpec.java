package org.clustersim.topology;

import java.util.Locale;

/**
 * Racks of one NVLink domain each (GB200 / GB300 NVL72) joined by a rail-optimised scale-out
 * fabric after the DGX SuperPOD GB200 reference architecture: scalable units (SU) of 8 racks
 * (576 GPUs), one NIC per GPU, NDR InfiniBand switches of 64 ports (XDR switches of 144 for 800
 * Gb/s NICs, as the DGX SuperPOD B300 XDR reference builds its 576-GPU SUs).
 *
 * <p>Rails: GPU g of every rack of an SU is on rail g. A leaf gives half its ports (32) to the
 * SU's GPUs and half to the spines, so it holds {@code 32 / 8 = 4} rails of the SU's 8 racks (a
 * compute tray's 4 GPUs, as the reference cables them) and an SU has 72 / 4 = 18 leaves. That
 * leaf count follows from the port arithmetic; the reference's cabling figure is not read here in
 * full (uncertain). A last SU with fewer racks keeps all its leaves with ports unused, as the
 * reference asks of a partial SU. Leaves are ordered by rail group, then SU, so the same rails of
 * several SUs share a pod in three levels.
 *
 * <p>Above the leaves a fat tree: two levels while the leaves fit a spine's ports (every leaf
 * cabled equally often to every spine, as often as a spine's ports allow: 1 SU 18 leaves, 16
 * spines of 2 cables from each leaf; 2-3 SUs 36-54 leaves, 32 spines; the rule gives the switch
 * counts of NVIDIA's SuperPOD B200 and B300 XDR tables), three above (pods of 32 leaves under 32 spines each, spine j
 * of every pod on core plane j, each plane with as few cores as its cables need, cables spread
 * round-robin). Links above the leaves run at the NIC rate divided by the oversubscription.
 * Hop latencies: as {@link SuperPodSpec} (450 ns a switch-switch hop).
 *
 * @param name             preset name
 * @param accelerator      GPU model
 * @param racks            racks (NVLink domains), at least 1
 * @param gpusPerRack      GPUs in one NVLink domain (72), which is also the number of rails
 * @param racksPerUnit     racks per SU (8 in the reference)
 * @param nvlinkBytesPerS  NVLink bandwidth per GPU per direction
 * @param nvlinkLatencyNs  latency of a GPU-NVSwitch hop
 * @param nicBytesPerS     NIC rate per direction
 * @param gpuNicLatencyNs  latency of the GPU-NIC hop
 * @param cableLatencyNs   latency of the NIC-leaf hop
 * @param radix            ports per switch (64 for the reference's Quantum-2 QM9700)
 * @param oversubscription ratio of down- to uplink capacity above the leaves, at least 1
 */
public record RackPodSpec(String name, AcceleratorSpec accelerator, int racks, int gpusPerRack, int racksPerUnit,
                          double nvlinkBytesPerS, long nvlinkLatencyNs, double nicBytesPerS, long gpuNicLatencyNs,
                          long cableLatencyNs, int radix, double oversubscription) implements ClusterSpec {

    /** Racks in one SU of the DGX SuperPOD GB200 reference architecture. */
    public static final int RACKS_PER_UNIT = 8;
    /** Ports of the reference's NDR (400 Gb/s) leaf, spine and core switches (Quantum-2 QM9700). */
    public static final int RADIX = 64;
    /**
     * Ports of an XDR (800 Gb/s) switch (Quantum-X800 Q3400): 144. With it the spine rule below
     * gives the DGX SuperPOD B300 XDR reference's switch counts (576 GPUs an SU: 1 SU 8 leaves and 4
     * spines, 2 SU 16 and 8, 4 SU 32 and 18, 8 SU 64 and 36, 18 SU 144 and 72).
     */
    public static final int RADIX_XDR = 144;

    /** The switch radix for NICs of this rate: XDR switches above 400 Gb/s, NDR up to it. */
    public static int radixFor(double nicBytesPerS) {
        return nicBytesPerS > 50e9 ? RADIX_XDR : RADIX;
    }
    /** Latency of hops above the leaf, as {@link SuperPodSpec}'s. */
    private static final long SWITCH_HOP_NS = 450;

    public RackPodSpec {
        if (racks < 1 || gpusPerRack < 1 || racksPerUnit < 1) {
            throw new IllegalArgumentException("racks, gpusPerRack and racksPerUnit must be at least 1");
        }
        if (radix < 4 || radix % 2 != 0) {
            throw new IllegalArgumentException("radix must be an even number of at least 4 ports, got " + radix);
        }
        if (!(oversubscription >= 1)) {
            throw new IllegalArgumentException("oversubscription must be at least 1, got " + oversubscription);
        }
        int down = radix / 2;
        if (down % racksPerUnit != 0 || gpusPerRack % (down / racksPerUnit) != 0) {
            throw new IllegalArgumentException("a rail-optimized leaf's " + down + " down ports take the same rails of "
                    + racksPerUnit + " racks, " + (down % racksPerUnit != 0 ? "which they do not divide"
                    : down / racksPerUnit + " rails each, which do not divide " + gpusPerRack + " GPUs per rack")
                    + "; use fabric: fat-tree");
        }
        int leaves = ceilDiv(racks, racksPerUnit) * gpusPerRack / (down / racksPerUnit);
        if (leaves > radix * (radix / 2)) {
            int maxUnits = radix * (radix / 2) / (gpusPerRack / (down / racksPerUnit));
            throw new IllegalArgumentException(racks + " racks need " + leaves + " leaves, more than a three-level "
                    + "fabric of " + radix + "-port switches holds (" + radix + " pods of " + radix / 2 + "): at most "
                    + maxUnits * racksPerUnit + " racks");
        }
    }

    /**
     * NVL72 racks of {@code chip} with the SuperPOD GB200 reference's SU, switches of the NIC's
     * generation ({@link #radixFor}), 1:1.
     */
    public static RackPodSpec of(String name, AcceleratorSpec chip, int racks, int gpusPerRack, double nvlinkBytesPerS,
                                 long nvlinkLatencyNs, double nicBytesPerS, long gpuNicLatencyNs, long cableLatencyNs) {
        return new RackPodSpec(name, chip, racks, gpusPerRack, RACKS_PER_UNIT, nvlinkBytesPerS, nvlinkLatencyNs,
                nicBytesPerS, gpuNicLatencyNs, cableLatencyNs, radixFor(nicBytesPerS), 1.0);
    }

    /** {@code racks} of a single-rack preset (e.g. {@link SwitchedClusterSpec#gb200Nvl72}) on this fabric. */
    public static RackPodSpec of(SwitchedClusterSpec rack, int racks) {
        return of(rack.name() + "-rails", rack.accelerator(), racks, rack.gpusPerNode(), rack.nvlinkBytesPerS(),
                rack.nvlinkLatencyNs(), rack.nicBytesPerS(), rack.gpuNicLatencyNs(), rack.nicSwitchLatencyNs());
    }

    /** The same fabric with another oversubscription ratio above the leaves. */
    public RackPodSpec withOversubscription(double ratio) {
        return new RackPodSpec(name, accelerator, racks, gpusPerRack, racksPerUnit, nvlinkBytesPerS, nvlinkLatencyNs,
                nicBytesPerS, gpuNicLatencyNs, cableLatencyNs, radix, ratio);
    }

    private static int ceilDiv(int a, int b) {
        return (a + b - 1) / b;
    }

    @Override
    public int nodes() {
        return racks;
    }

    @Override
    public int gpusPerNode() {
        return gpusPerRack;
    }

    public int scalableUnits() {
        return ceilDiv(racks, racksPerUnit);
    }

    /** Leaf ports toward the GPUs, and toward the spines. */
    public int leafPorts() {
        return radix / 2;
    }

    /** Rails (GPU positions in a rack) under one leaf. */
    public int railsPerLeaf() {
        return leafPorts() / racksPerUnit;
    }

    public int leavesPerUnit() {
        return gpusPerRack / railsPerLeaf();
    }

    public int leaves() {
        return scalableUnits() * leavesPerUnit();
    }

    public boolean threeLevel() {
        return leaves() > radix;
    }

    /** Two levels: cables between each leaf and each spine, as many as the spines' ports allow. */
    public int cablesPerSpine() {
        int up = leafPorts();
        int c = 1;
        for (int k = 1; k <= up; k++) {
            if (up % k == 0 && leaves() * k <= radix) {
                c = k;
            }
        }
        return c;
    }

    /** Three levels: pods of {@code radix / 2} leaves. */
    public int pods() {
        return threeLevel() ? ceilDiv(leaves(), radix / 2) : 1;
    }

    public int spines() {
        return threeLevel() ? pods() * leafPorts() : leafPorts() / cablesPerSpine();
    }

    /** Cores of each of the {@code radix / 2} planes (three levels). */
    public int coresPerPlane() {
        return threeLevel() ? ceilDiv(pods() * (radix / 2), radix) : 0;
    }

    public int cores() {
        return coresPerPlane() * leafPorts();
    }

    @Override
    public String describe() {
        return String.format(Locale.ROOT, "%d racks x %d %s (%d SU of %d racks), NVLink %.0f GB/s per GPU per "
                        + "direction, rail-optimised %s (%d leaves of %d rails, %d spines%s), %.0f GB/s NIC per GPU, %s",
                racks, gpusPerRack, accelerator.name(), scalableUnits(), racksPerUnit, nvlinkBytesPerS / 1e9,
                threeLevel() ? "three-level" : "leaf-spine", leaves(), railsPerLeaf(), spines(),
                threeLevel() ? ", " + cores() + " cores" : "", nicBytesPerS / 1e9,
                oversubscription == 1 ? "1:1" : oversubscription + ":1");
    }

    @Override
    public Topology build() {
        Topology.Builder b = Topology.builder(name, accelerator);
        b.spec(this);
        Vertex[][] gpu = b.nvSwitchServers(racks, gpusPerRack, nvlinkBytesPerS, nvlinkLatencyNs);
        if (racks == 1) {
            return b.build();
        }
        int units = scalableUnits();
        int rails = railsPerLeaf();
        Vertex[] leaf = b.railLeaves(gpu, units, racksPerUnit, leavesPerUnit(), rails, nicBytesPerS, gpuNicLatencyNs,
                cableLatencyNs);
        double up = nicBytesPerS / oversubscription;
        int leafUp = leafPorts();
        if (!threeLevel()) {
            int spines = spines();
            Vertex[] spine = new Vertex[spines];
            for (int s = 0; s < spines; s++) {
                spine[s] = b.addVertex("spine" + s, VertexKind.SWITCH, -1);
            }
            for (Vertex l : leaf) {
                for (int j = 0; j < leafUp; j++) {
                    b.addDuplex(l, spine[j % spines], LinkKind.SWITCH_SWITCH, up, SWITCH_HOP_NS);
                }
            }
            return b.build();
        }
        int podLeaves = radix / 2;
        int pods = pods();
        Vertex[][] spine = new Vertex[pods][leafUp];
        for (int p = 0; p < pods; p++) {
            for (int j = 0; j < leafUp; j++) {
                spine[p][j] = b.addVertex("pod" + p + ".spine" + j, VertexKind.SWITCH, -1);
            }
        }
        for (int l = 0; l < leaf.length; l++) {
            for (int j = 0; j < leafUp; j++) {
                b.addDuplex(leaf[l], spine[l / podLeaves][j], LinkKind.SWITCH_SWITCH, up, SWITCH_HOP_NS);
            }
        }
        int spineUp = radix - podLeaves;
        int cores = coresPerPlane();
        for (int j = 0; j < leafUp; j++) {
            Vertex[] core = new Vertex[cores];
            for (int c = 0; c < cores; c++) {
                core[c] = b.addVertex("plane" + j + ".core" + c, VertexKind.SWITCH, -1);
            }
            // round-robin over the plane's cables: every core takes at most radix, every spine
            // reaches every core (cores <= spineUp while pods <= radix)
            for (int p = 0; p < pods; p++) {
                for (int u = 0; u < spineUp; u++) {
                    b.addDuplex(spine[p][j], core[(p * spineUp + u) % cores], LinkKind.SWITCH_SWITCH, up,
                            SWITCH_HOP_NS);
                }
            }
        }
        return b.build();
    }
}
