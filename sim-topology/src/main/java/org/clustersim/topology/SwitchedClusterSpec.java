package org.clustersim.topology;

/**
 * A cluster of NVSwitch servers whose GPUs each own one NIC, all NICs cabled to one switch.
 *
 * <p>This is the smallest useful multi-node fabric: every GPU-to-GPU path inside a server
 * crosses the NVSwitch (GPU to switch, switch to GPU); every path between servers goes
 * GPU, NIC, switch, NIC, GPU. Bandwidths are per direction.
 *
 * @param name                preset name
 * @param accelerator         the GPU model
 * @param nodes               number of servers, at least 1
 * @param gpusPerNode         GPUs in one NVSwitch domain
 * @param nvlinkBytesPerS     NVLink bandwidth per GPU per direction
 * @param nvlinkLatencyNs     latency of one GPU-NVSwitch hop
 * @param nicBytesPerS        NIC line rate per direction
 * @param gpuNicLatencyNs     latency of the GPU-NIC hop
 * @param nicSwitchLatencyNs  latency of the NIC-switch hop (cable plus switching)
 */
public record SwitchedClusterSpec(String name, AcceleratorSpec accelerator, int nodes, int gpusPerNode,
                                  double nvlinkBytesPerS, long nvlinkLatencyNs, double nicBytesPerS,
                                  long gpuNicLatencyNs, long nicSwitchLatencyNs) implements ClusterSpec {
    public SwitchedClusterSpec {
        if (nodes < 1 || gpusPerNode < 1) {
            throw new IllegalArgumentException("nodes and gpusPerNode must be at least 1");
        }
    }

    @Override
    public String describe() {
        return String.format(java.util.Locale.ROOT, "%d x %d %s, NVSwitch %.0f GB/s per GPU per direction%s", nodes,
                gpusPerNode, accelerator.name(), nvlinkBytesPerS / 1e9, nodes > 1 ? String.format(java.util.Locale.ROOT,
                        ", one %.0f GB/s NIC per GPU on a single switch", nicBytesPerS / 1e9) : "");
    }

    /**
     * DGX/HGX H100: 8 GPUs, NVLink4 at 450 GB/s per direction per GPU, one 400 Gb/s NDR NIC
     * (50 GB/s) per GPU. Latencies are chosen so that a 64-byte IB message between servers
     * sees about 2.8 us, the published same-leaf figure.
     */
    public static SwitchedClusterSpec dgxH100(int nodes) {
        return new SwitchedClusterSpec("dgx-h100", AcceleratorSpec.H100_SXM, nodes, 8, 450e9, 250, 50e9, 200, 1200);
    }

    /** HGX H200: the HGX H100's NVLink4 switch tray and NDR NICs around H200 GPUs. */
    public static SwitchedClusterSpec dgxH200(int nodes) {
        return new SwitchedClusterSpec("dgx-h200", AcceleratorSpec.H200_SXM, nodes, 8, 450e9, 250, 50e9, 200, 1200);
    }

    /** DGX A100: 8 GPUs, NVLink3 at 300 GB/s per direction per GPU, one 200 Gb/s HDR NIC (25 GB/s) per GPU. */
    public static SwitchedClusterSpec dgxA100(int nodes) {
        return new SwitchedClusterSpec("dgx-a100", AcceleratorSpec.A100_SXM_80GB, nodes, 8, 300e9, 250, 25e9, 200,
                1200);
    }

    /** HGX B200: 8 GPUs, NVLink5 at 900 GB/s per direction per GPU, one 400 Gb/s NIC per GPU. */
    public static SwitchedClusterSpec dgxB200(int nodes) {
        return new SwitchedClusterSpec("dgx-b200", AcceleratorSpec.B200, nodes, 8, 900e9, 250, 50e9, 200, 1200);
    }

    /**
     * The GB200 NVL72 rack's fabric around the HGX B200 chip ({@link AcceleratorSpec#B200}, 1000 W
     * figures, the {@code b200} profile): one NVLink domain of 72 GPUs at 900 GB/s per direction per
     * GPU, one 400 Gb/s NIC per GPU. Kept as it was for the scenarios that name it; the rack as
     * NVIDIA sells it, with its own chip figures, is {@link #gb200Nvl72}.
     */
    public static SwitchedClusterSpec nvl72(int racks) {
        return new SwitchedClusterSpec("nvl72", AcceleratorSpec.B200, racks, 72, 900e9, NVLINK_NS, 50e9, GPU_NIC_NS,
                NIC_SWITCH_NS);
    }

    /*
     * Hop latencies of the Blackwell presets. NVIDIA publishes none for NVLink5 / NVSwitch or
     * for ConnectX-7/8 in these systems: they are the Hopper presets' (250 ns a GPU-NVSwitch hop,
     * 200 ns GPU-NIC, 1200 ns NIC-switch, set from the DGX H100 SuperPOD's 2.8 us same-leaf
     * figure), uncertain for Blackwell.
     */
    private static final long NVLINK_NS = 250;
    private static final long GPU_NIC_NS = 200;
    private static final long NIC_SWITCH_NS = 1200;

    /**
     * GB200 NVL72 (NVIDIA's GB200 NVL72 datasheet and DGX GB200 user guide): 72 GB200 GPUs
     * ({@link AcceleratorSpec#GB200}) in one NVLink5 domain, 18 compute trays of 4 GPUs and 9
     * NVLink switch trays of 2 NVSwitch chips, every GPU with one NVLink5 link to each of the 18
     * chips: 1.8 TB/s per GPU both ways, 900 GB/s per direction (the 18 chips are one crossbar
     * vertex here, as {@link Topology.Builder#nvSwitchServers} explains); per GPU one ConnectX-7
     * 400 Gb/s (50 GB/s) NIC on the compute fabric (4 per compute tray; the DGX SuperPOD GB200
     * reference architecture's NDR InfiniBand compute fabric). Latencies: the Hopper presets',
     * uncertain (see above).
     */
    public static SwitchedClusterSpec gb200Nvl72(int racks) {
        return new SwitchedClusterSpec("gb200-nvl72", AcceleratorSpec.GB200, racks, 72, 900e9, NVLINK_NS, 50e9,
                GPU_NIC_NS, NIC_SWITCH_NS);
    }

    /**
     * GB300 NVL72 (NVIDIA's GB300 NVL72 datasheet; Enterprise RA "NVL72 AI factory", System
     * Hardware &amp; Components, docs.nvidia.com/enterprise-reference-architectures/nvl72-ai-factory):
     * 72 Blackwell Ultra GPUs ({@link AcceleratorSpec#GB300}) in one NVLink5 domain, 9 NVSwitch trays
     * (130 TB/s per rack: 900 GB/s per GPU per direction), and per compute tray of 4 GPUs 4
     * ConnectX-8 SuperNICs at 800 Gb/s (100 GB/s), one per GPU. Latencies: the Hopper presets',
     * uncertain.
     */
    public static SwitchedClusterSpec gb300Nvl72(int racks) {
        return new SwitchedClusterSpec("gb300-nvl72", AcceleratorSpec.GB300, racks, 72, 900e9, NVLINK_NS, 100e9,
                GPU_NIC_NS, NIC_SWITCH_NS);
    }

    /**
     * DGX B300 (NVIDIA's DGX B300 datasheet and user guide): 8 Blackwell Ultra GPUs
     * ({@link AcceleratorSpec#B300}) on NVLink5 switches, 14.4 TB/s aggregate (900 GB/s per GPU per
     * direction), 8 single-port ConnectX-8 VPI at up to 800 Gb/s (100 GB/s), one per GPU.
     * Latencies: the Hopper presets', uncertain.
     */
    public static SwitchedClusterSpec dgxB300(int nodes) {
        return new SwitchedClusterSpec("dgx-b300", AcceleratorSpec.B300, nodes, 8, 900e9, NVLINK_NS, 100e9,
                GPU_NIC_NS, NIC_SWITCH_NS);
    }

    /** Preset names accepted by {@link #preset(String, int)}. */
    public static java.util.List<String> presetNames() {
        return java.util.List.of("dgx-a100", "dgx-b200", "dgx-b300", "dgx-h100", "dgx-h200", "gb200-nvl72",
                "gb300-nvl72", "nvl72");
    }

    /** A preset by name with the given number of servers (racks for the NVL72 presets). */
    public static java.util.Optional<SwitchedClusterSpec> preset(String presetName, int nodes) {
        return switch (presetName) {
            case "dgx-h100" -> java.util.Optional.of(dgxH100(nodes));
            case "dgx-a100" -> java.util.Optional.of(dgxA100(nodes));
            case "dgx-b200" -> java.util.Optional.of(dgxB200(nodes));
            case "dgx-b300" -> java.util.Optional.of(dgxB300(nodes));
            case "dgx-h200" -> java.util.Optional.of(dgxH200(nodes));
            case "gb200-nvl72" -> java.util.Optional.of(gb200Nvl72(nodes));
            case "gb300-nvl72" -> java.util.Optional.of(gb300Nvl72(nodes));
            case "nvl72" -> java.util.Optional.of(nvl72(nodes));
            default -> java.util.Optional.empty();
        };
    }

    /**
     * Builds the graph: per server one NVSwitch vertex and, per GPU, a NIC; one scale-out
     * switch joins all NICs. A single-server cluster has no NICs or scale-out switch.
     */
    public Topology build() {
        Topology.Builder b = Topology.builder(name, accelerator);
        b.spec(this);
        Vertex[][] gpus = b.nvSwitchServers(nodes, gpusPerNode, nvlinkBytesPerS, nvlinkLatencyNs);
        if (nodes > 1) {
            Vertex sw = b.addVertex("switch0", VertexKind.SWITCH, -1);
            for (int n = 0; n < nodes; n++) {
                for (int g = 0; g < gpusPerNode; g++) {
                    Vertex nic = b.addVertex("node" + n + ".nic" + g, VertexKind.NIC, n);
                    b.addDuplex(gpus[n][g], nic, LinkKind.GPU_NIC, nicBytesPerS, gpuNicLatencyNs);
                    b.nic(gpus[n][g], nic);
                    b.addDuplex(nic, sw, LinkKind.NIC_SWITCH, nicBytesPerS, nicSwitchLatencyNs);
                }
            }
        }
        return b.build();
    }
}
