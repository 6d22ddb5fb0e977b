package org.clustersim.topology;

import java.util.Locale;

/**
 * A generic folded-Clos (fat-tree) scale-out fabric of 2 or 3 switch levels with a
 * configurable oversubscription ratio at each level, under NVSwitch servers with one NIC per
 * GPU. Unlike the rail-optimised SuperPOD, GPUs fill leaves in order, so a server's GPUs share
 * a leaf.
 *
 * <p>Every switch has {@code radix} ports. A level with ratio r splits them into
 * radix r/(1+r) down and radix/(1+r) up (r = 1: half and half, non-blocking). Two levels:
 * each leaf cables once to each spine, so there are as many spines as leaf uplinks. Three
 * levels: pods of as many leaves as a spine has down ports, each pod with as many spines as a
 * leaf has uplinks (each leaf cabled once to each spine of its pod); core plane j takes the
 * uplinks of spine j of every pod, spread round-robin over as few cores as their ports allow
 * (a full k-ary fat tree has k/2 cores per plane).
 *
 * @param name            preset name
 * @param accelerator     GPU model
 * @param nodes           servers
 * @param gpusPerNode     GPUs per server (one NIC each)
 * <p>Hop latencies are those of {@link SwitchedClusterSpec} and {@link SuperPodSpec}: a
 * GPU-NVSwitch hop, the GPU-NIC hop, the NIC-leaf hop (cable plus switching), and 450 ns for
 * each switch-switch hop.
 *
 * @param nvlinkBytesPerS    NVLink bandwidth per GPU per direction
 * @param nvlinkLatencyNs    latency of a GPU-NVSwitch hop
 * @param nicBytesPerS       NIC and switch-port rate per direction
 * @param gpuNicLatencyNs    latency of the GPU-NIC hop
 * @param nicSwitchLatencyNs latency of the NIC-leaf hop
 * @param radix              ports per switch
 * @param ratios             oversubscription per level: leaf, and spine for three levels (each at least 1)
 */
public record FatTreeSpec(String name, AcceleratorSpec accelerator, int nodes, int gpusPerNode, double nvlinkBytesPerS,
                          long nvlinkLatencyNs, double nicBytesPerS, long gpuNicLatencyNs, long nicSwitchLatencyNs,
                          int radix, double[] ratios) implements ClusterSpec {

    /** The hop latencies of the DGX presets ({@link SwitchedClusterSpec#dgxH100}). */
    private static final long NVLINK_NS = 250;
    private static final long GPU_NIC_NS = 200;
    private static final long CABLE_NS = 1200;
    private static final long SWITCH_NS = 450;

    /** A fat tree with the DGX presets' hop latencies (250 ns NVLink, 200 ns GPU-NIC, 1200 ns NIC-leaf). */
    public FatTreeSpec(String name, AcceleratorSpec accelerator, int nodes, int gpusPerNode, double nvlinkBytesPerS,
                       double nicBytesPerS, int radix, double[] ratios) {
        this(name, accelerator, nodes, gpusPerNode, nvlinkBytesPerS, NVLINK_NS, nicBytesPerS, GPU_NIC_NS, CABLE_NS,
                radix, ratios);
    }

    public FatTreeSpec {
        ratios = ratios.clone();
        if (ratios.length < 1 || ratios.length > 2) {
            throw new IllegalArgumentException("a fat tree has 2 or 3 levels: give 1 or 2 oversubscription ratios");
        }
        for (double r : ratios) {
            if (!(r >= 1)) {
                throw new IllegalArgumentException("oversubscription ratios must be at least 1, got " + r);
            }
        }
        if (radix < 4 || nodes < 1 || gpusPerNode < 1) {
            throw new IllegalArgumentException("radix must be at least 4, nodes and gpusPerNode at least 1");
        }
        int leaves = ceilDiv(nodes * gpusPerNode, down(radix, ratios[0]));
        if (ratios.length == 1 && leaves > radix) {
            throw new IllegalArgumentException(leaves + " leaves exceed a spine's " + radix + " ports: use 3 levels");
        }
        if (ratios.length == 2 && ceilDiv(leaves, down(radix, ratios[1])) > radix) {
            throw new IllegalArgumentException("too many pods for a core's " + radix + " ports");
        }
    }

    /** An H100 fat tree of 64-port NDR switches. */
    public static FatTreeSpec h100(int nodes, double... ratios) {
        return new FatTreeSpec("fattree-h100", AcceleratorSpec.H100_SXM, nodes, 8, 450e9, 50e9, 64, ratios);
    }

    static int down(int radix, double ratio) {
        return (int) Math.round(radix * ratio / (1 + ratio));
    }

    private static int ceilDiv(int a, int b) {
        return (a + b - 1) / b;
    }

    public int levels() {
        return ratios.length + 1;
    }

    public int leafDown() {
        return down(radix, ratios[0]);
    }

    public int leafUp() {
        return radix - leafDown();
    }

    public int leaves() {
        return ceilDiv(gpus(), leafDown());
    }

    /** Leaves per pod (three levels): a spine's down ports. */
    public int podLeaves() {
        return ratios.length == 2 ? down(radix, ratios[1]) : leaves();
    }

    public int pods() {
        return ceilDiv(leaves(), podLeaves());
    }

    public int spines() {
        return pods() * leafUp();
    }

    /** Uplinks of each spine (three levels). */
    public int spineUp() {
        return radix - podLeaves();
    }

    /** Cores in each of the leafUp() planes. */
    public int coresPerPlane() {
        return ratios.length == 2 ? ceilDiv(spineUp() * pods(), radix) : 0;
    }

    public int cores() {
        return leafUp() * coresPerPlane();
    }

    @Override
    public String describe() {
        return String.format(Locale.ROOT, "%d x %d %s, %d-level fat tree of %d-port switches (%d leaves, %d spines%s), "
                + "oversubscription %s", nodes, gpusPerNode, accelerator.name(), levels(), radix, leaves(), spines(),
                cores() > 0 ? ", " + cores() + " cores" : "", java.util.Arrays.toString(ratios));
    }

    @Override
    public Topology build() {
        Topology.Builder b = Topology.builder(name, accelerator);
        b.spec(this);
        Vertex[][] servers = b.nvSwitchServers(nodes, gpusPerNode, nvlinkBytesPerS, nvlinkLatencyNs);
        Vertex[] gpu = new Vertex[gpus()];
        for (int i = 0; i < gpu.length; i++) {
            gpu[i] = servers[i / gpusPerNode][i % gpusPerNode];
        }
        Vertex[] leaf = new Vertex[leaves()];
        for (int l = 0; l < leaf.length; l++) {
            leaf[l] = b.addVertex("leaf" + l, VertexKind.SWITCH, -1);
        }
        for (int i = 0; i < gpu.length; i++) {
            Vertex nic = b.addVertex(gpu[i].name().replace("gpu", "nic"), VertexKind.NIC, gpu[i].node());
            b.addDuplex(gpu[i], nic, LinkKind.GPU_NIC, nicBytesPerS, gpuNicLatencyNs);
            b.addDuplex(nic, leaf[i / leafDown()], LinkKind.NIC_SWITCH, nicBytesPerS, nicSwitchLatencyNs);
            b.nic(gpu[i], nic);
        }
        Vertex[][] spine = new Vertex[pods()][leafUp()];
        for (int p = 0; p < pods(); p++) {
            for (int j = 0; j < leafUp(); j++) {
                spine[p][j] = b.addVertex((pods() > 1 ? "pod" + p + "." : "") + "spine" + j, VertexKind.SWITCH, -1);
            }
        }
        for (int l = 0; l < leaf.length; l++) {
            for (int j = 0; j < leafUp(); j++) {
                b.addDuplex(leaf[l], spine[l / podLeaves()][j], LinkKind.SWITCH_SWITCH, nicBytesPerS, SWITCH_NS);
            }
        }
        if (ratios.length == 2) {
            double up = nicBytesPerS;
            for (int j = 0; j < leafUp(); j++) {
                Vertex[] core = new Vertex[coresPerPlane()];
                for (int c = 0; c < core.length; c++) {
                    core[c] = b.addVertex("plane" + j + ".core" + c, VertexKind.SWITCH, -1);
                }
                for (int p = 0; p < pods(); p++) {
                    for (int u = 0; u < spineUp(); u++) {
                        b.addDuplex(spine[p][j], core[u % core.length], LinkKind.SWITCH_SWITCH, up, SWITCH_NS);
                    }
                }
            }
        }
        return b.build();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FatTreeSpec f && f.name.equals(name) && f.nodes == nodes && f.radix == radix
                && java.util.Arrays.equals(f.ratios, ratios) && f.gpusPerNode == gpusPerNode
                && f.nvlinkLatencyNs == nvlinkLatencyNs && f.gpuNicLatencyNs == gpuNicLatencyNs
                && f.nicSwitchLatencyNs == nicSwitchLatencyNs;
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(name, nodes, radix, java.util.Arrays.hashCode(ratios));
    }
}
