package org.clustersim.topology;

import java.util.Locale;
import java.util.Optional;

/**
 * How a GPU reaches its host's memory: the link activation offload copies over and the host
 * memory that holds them. Kept apart from the cluster specs (their fabrics do not carry host
 * links); looked up by preset or accelerator name, and overridden by the scenario's
 * {@code cluster.hostLinkGBps} and {@code cluster.hostMemoryGB}.
 *
 * <p>A link shared by {@code gpusPerLink} GPUs (a Grace CPU's NVLink-C2C serves the two B200s of
 * a GB200 superchip) is modelled as an even static share per GPU: exact when the siblings copy
 * at the same time, as the GPUs of one data- or tensor-parallel group running in lockstep do, and
 * pessimistic when only one copies (the flow network has no host vertices to share it
 * dynamically).
 *
 * @param name            what the link is, for messages
 * @param linkBytesPerS   sustained bandwidth of the host link in one direction, bytes/s, for all
 *                        the GPUs on it together
 * @param gpusPerLink     GPUs sharing that link (1: a link per GPU)
 * @param hostBytesPerGpu host memory available to each GPU's process, bytes
 */
public record HostAttachment(String name, double linkBytesPerS, int gpusPerLink, double hostBytesPerGpu) {

    public HostAttachment {
        if (!(linkBytesPerS > 0) || gpusPerLink < 1 || !(hostBytesPerGpu > 0)) {
            throw new IllegalArgumentException("a host attachment needs a positive bandwidth, GPU count and memory");
        }
    }

    /**
     * PCIe Gen5 x16 (DGX H100, H200, B200, B300): 32 GT/s x 16 lanes x 128/130 = 63 GB/s per
     * direction nominal; nvbandwidth's host_to_device_memcpy_ce reports 55.6 GB/s (the example run
     * in NVIDIA's NVbandwidth blog, developer.nvidia.com/blog/?p=115566, as quoted by
     * dev.smart-guide.co.kr's nvbandwidth tutorial; uncertain: the GPU of that run is not named).
     * 55 GB/s taken as sustained. Whether two GPUs behind one PCIe switch share its uplink to
     * the CPU is not modelled (uncertain; DGX H100 pairs GPUs on its PCIe switches).
     */
    static final double PCIE_GEN5_BYTES_PER_S = 55e9;
    /** PCIe Gen4 x16 (DGX A100): 31.5 GB/s nominal per direction; ~25 GB/s taken as sustained (uncertain). */
    static final double PCIE_GEN4_BYTES_PER_S = 25e9;
    /**
     * NVLink-C2C of one Grace CPU: 900 GB/s total, 450 GB/s per direction (NVIDIA Grace Hopper and
     * GB200 datasheets; datacrunch.io's GH200 memcpy analysis quotes the same split). Nominal:
     * measured pinned copies reach less (uncertain; arXiv 2408.11556 characterises GH200's).
     * On GB200 and GB300 one Grace serves two GPUs.
     */
    static final double C2C_BYTES_PER_S = 450e9;
    private static final double GB = 1e9;

    /** The GPU's share of the host link in one direction: bytes/s when every GPU on it copies at once. */
    public double bytesPerSPerGpu() {
        return linkBytesPerS / gpusPerLink;
    }

    /** This attachment with the per-direction link bandwidth of each GPU's link set to {@code bytesPerS}. */
    public HostAttachment withLinkBytesPerS(double bytesPerS) {
        return new HostAttachment(name, bytesPerS, gpusPerLink, hostBytesPerGpu);
    }

    /** This attachment with {@code bytes} of host memory per GPU. */
    public HostAttachment withHostBytesPerGpu(double bytes) {
        return new HostAttachment(name, linkBytesPerS, gpusPerLink, bytes);
    }

    /**
     * The attachment of a cluster preset (dgx-a100, dgx-h100, dgx-h200, dgx-b200, dgx-b300,
     * nvl72, gb200-nvl72, gb300-nvl72) or, failing that, of an accelerator by name; empty when
     * neither is known.
     */
    public static Optional<HostAttachment> of(String presetOrAccelerator) {
        String n = presetOrAccelerator.toLowerCase(Locale.ROOT);
        return Optional.ofNullable(switch (n) {
            // DGX A100: 1 TB (2 TB option) for 8 GPUs (NVIDIA DGX A100 datasheet)
            case "dgx-a100", "a100-sxm-80gb" -> new HostAttachment("PCIe Gen4 x16", PCIE_GEN4_BYTES_PER_S, 1,
                    1000 * GB / 8);
            // DGX H100 and DGX H200: 2 TB of DDR5 for 8 GPUs (NVIDIA DGX H100/H200 datasheets)
            case "dgx-h100", "h100-sxm", "dgx-h200", "h200-sxm" -> new HostAttachment("PCIe Gen5 x16",
                    PCIE_GEN5_BYTES_PER_S, 1, 2000 * GB / 8);
            // DGX B200: 4 TB for 8 GPUs (NVIDIA DGX B200 datasheet); DGX B300: 2 TB, expandable to 4
            // (uncertain: the DGX B300 datasheet lists 2 TB; taken as 2)
            case "dgx-b200", "b200" -> new HostAttachment("PCIe Gen5 x16", PCIE_GEN5_BYTES_PER_S, 1, 4000 * GB / 8);
            case "dgx-b300", "b300" -> new HostAttachment("PCIe Gen5 x16", PCIE_GEN5_BYTES_PER_S, 1, 2000 * GB / 8);
            // GB200 / GB300 NVL72: each Grace has 480 GB of LPDDR5X (17 TB per 36 Graces, NVIDIA's
            // GB200 NVL72 page) and one NVLink-C2C to its two GPUs
            case "nvl72", "gb200-nvl72", "gb200", "gb300-nvl72", "gb300" -> new HostAttachment("Grace NVLink-C2C",
                    C2C_BYTES_PER_S, 2, 480 * GB / 2);
            default -> null;
        });
    }
}
