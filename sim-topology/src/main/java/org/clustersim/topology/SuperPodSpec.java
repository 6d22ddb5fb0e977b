package org.clustersim.topology;

import java.util.ArrayList;
import java.util.List;

/**
 * A rail-optimised InfiniBand cluster after the DGX SuperPOD reference architecture: servers
 * of 8 GPUs on an NVSwitch, one NIC per GPU, and scalable units (SU) of 32 servers under 8
 * leaf switches, one per rail, so GPU g of every server in an SU hangs off leaf g.
 *
 * <p>Up to 8 SUs the fabric has two levels: 4 spines per SU, every leaf spreading its 32
 * uplinks evenly over all spines (2 SU: 16 leaves, 8 spines; 4 SU: 32 and 16; 8 SU: 64 and
 * 32). Beyond that it has three: as many spines as leaves, in groups of 32 shared by 32
 * consecutive leaves (ordered by rail, then SU), each leaf cabled once to each spine of its
 * group; half as many cores as leaves, each spine cabled once to 32 cores (16 SU: 128 leaves,
 * 128 spines, 64 cores; 64 SU: 512, 512, 256), matching the reference's switch counts.
 * Links above the leaves run at the NIC rate divided by the oversubscription ratio (1 = 1:1).
 *
 * @param name               preset name
 * @param accelerator        GPU model
 * @param scalableUnits      number of SUs (1..8, or a multiple of 4 above 8)
 * @param gpusPerNode        GPUs per server, which is also the number of rails
 * @param nodesPerUnit       servers per SU (32 in the reference)
 * @param nvlinkBytesPerS    NVLink bandwidth per GPU per direction
 * @param nvlinkLatencyNs    latency of a GPU-NVSwitch hop
 * @param nicBytesPerS       NIC rate per direction
 * @param gpuNicLatencyNs    latency of the GPU-NIC hop
 * @param cableLatencyNs     latency of each switch-port hop (NIC-leaf, leaf-spine, spine-core)
 * @param oversubscription   ratio of down- to uplink capacity at the leaf and spine levels, at least 1
 */
public record SuperPodSpec(String name, AcceleratorSpec accelerator, int scalableUnits, int gpusPerNode,
                           int nodesPerUnit, double nvlinkBytesPerS, long nvlinkLatencyNs, double nicBytesPerS,
                           long gpuNicLatencyNs, long cableLatencyNs, double oversubscription)
        implements ClusterSpec {

    public SuperPodSpec {
        if (scalableUnits < 1 || (scalableUnits > 8 && scalableUnits % 4 != 0)) {
            throw new IllegalArgumentException("scalable units must be 1..8 or a multiple of 4, got " + scalableUnits);
        }
        if (gpusPerNode < 1 || nodesPerUnit < 1) {
            throw new IllegalArgumentException("gpusPerNode and nodesPerUnit must be at least 1");
        }
        if (!(oversubscription >= 1)) {
            throw new IllegalArgumentException("oversubscription must be at least 1, got " + oversubscription);
        }
        int leaves = scalableUnits * gpusPerNode;
        if (scalableUnits > 8 && (leaves % SPINE_GROUP != 0 || leaves / 2 < SPINE_GROUP)) {
            // above 8 SUs the leaves (one per rail per SU) go 32 to a spine group, and each spine
            // reaches the cores at a stride of cores / 32: both must come out whole
            throw new IllegalArgumentException("a three-level rail-optimized fabric (more than 8 scalable units) groups"
                    + " its leaves (one per GPU rail per scalable unit) " + SPINE_GROUP + " to a spine group: "
                    + scalableUnits + " units x " + gpusPerNode + " GPUs per node = " + leaves
                    + " leaves, expected a multiple of " + SPINE_GROUP + " and at least " + 2 * SPINE_GROUP);
        }
    }

    /** Leaves per spine group in a three-level fabric (the SuperPOD reference design's 32-port groups). */
    private static final int SPINE_GROUP = 32;

    /**
     * DGX H100 SuperPOD: 450 GB/s NVLink4, 400 Gb/s NDR NICs, 1:1. Latencies are set so that a
     * 64-byte message between GPUs under one leaf sees about 2.8 us and across leaves about
     * 3.7 us, the published figures: 200 ns GPU-NIC, 1200 ns NIC-leaf, 450 ns per switch hop above.
     */
    public static SuperPodSpec h100(int scalableUnits) {
        return new SuperPodSpec("superpod-h100-" + scalableUnits + "su", AcceleratorSpec.H100_SXM, scalableUnits, 8,
                32, 450e9, 250, 50e9, 200, 1200, 1.0);
    }

    /** The same fabric with another oversubscription ratio above the leaves. */
    public SuperPodSpec withOversubscription(double ratio) {
        return new SuperPodSpec(name, accelerator, scalableUnits, gpusPerNode, nodesPerUnit, nvlinkBytesPerS,
                nvlinkLatencyNs, nicBytesPerS, gpuNicLatencyNs, cableLatencyNs, ratio);
    }

    @Override
    public int nodes() {
        return scalableUnits * nodesPerUnit;
    }

    @Override
    public String describe() {
        return String.format(java.util.Locale.ROOT,
                "%d SU x %d nodes x %d %s, rail-optimised %s (%d leaves, %d spines%s), %.0f GB/s NIC per GPU, %s",
                scalableUnits, nodesPerUnit, gpusPerNode, accelerator.name(), threeLevel() ? "three-level" : "leaf-spine",
                leaves(), spines(), threeLevel() ? ", " + cores() + " cores" : "", nicBytesPerS / 1e9,
                oversubscription == 1 ? "1:1" : oversubscription + ":1");
    }

    public int leaves() {
        return scalableUnits * gpusPerNode;
    }

    public boolean threeLevel() {
        return scalableUnits > 8;
    }

    public int spines() {
        return threeLevel() ? leaves() : 4 * scalableUnits;
    }

    public int cores() {
        return threeLevel() ? leaves() / 2 : 0;
    }

    /** Latency of hops above the leaf, which the reference's cross-leaf figure implies. */
    private static final long SWITCH_HOP_NS = 450;

    public Topology build() {
        Topology.Builder b = Topology.builder(name, accelerator);
        b.spec(this);
        int nodes = nodes();
        Vertex[][] gpu = b.nvSwitchServers(nodes, gpusPerNode, nvlinkBytesPerS, nvlinkLatencyNs);
        // leaves ordered by rail, then SU: leaf index = rail * SUs + su
        Vertex[] leaf = b.railLeaves(gpu, scalableUnits, nodesPerUnit, gpusPerNode, 1, nicBytesPerS, gpuNicLatencyNs,
                cableLatencyNs);
        double up = nicBytesPerS / oversubscription;
        int uplinks = nodesPerUnit;
        List<Vertex> spine = new ArrayList<>();
        for (int s = 0; s < spines(); s++) {
            spine.add(b.addVertex("spine" + s, VertexKind.SWITCH, -1));
        }
        if (!threeLevel()) {
            for (Vertex l : leaf) {
                for (int j = 0; j < uplinks; j++) {
                    b.addDuplex(l, spine.get(j % spines()), LinkKind.SWITCH_SWITCH, up, SWITCH_HOP_NS);
                }
            }
        } else {
            int group = SPINE_GROUP;
            for (int i = 0; i < leaf.length; i++) {
                int g = i / group;
                for (int j = 0; j < group; j++) {
                    b.addDuplex(leaf[i], spine.get(g * group + j), LinkKind.SWITCH_SWITCH, up, SWITCH_HOP_NS);
                }
            }
            int cores = cores();
            int stride = cores / group;
            List<Vertex> core = new ArrayList<>();
            for (int c = 0; c < cores; c++) {
                core.add(b.addVertex("core" + c, VertexKind.SWITCH, -1));
            }
            for (int s = 0; s < spines(); s++) {
                int j = s % group;
                for (int c = j % stride; c < cores; c += stride) {
                    b.addDuplex(spine.get(s), core.get(c), LinkKind.SWITCH_SWITCH, up, SWITCH_HOP_NS);
                }
            }
        }
        return b.build();
    }
}
