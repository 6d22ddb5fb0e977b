package org.clustersim.strategies.device;

import java.util.List;

import org.clustersim.topology.AcceleratorSpec;

/**
 * Everything the cost model knows about one accelerator, read from a profile file
 * (bundled under {@code org/clustersim/profiles/}, or a user's own, see docs/device-profiles.md):
 * dense peaks, HBM capacity and bandwidth with the fraction of it memory-bound kernels reach,
 * GEMM throughput surfaces per precision, attention-core throughput tables per implementation,
 * kernel launch costs, how many kernels each memory-bound operation launches, the fused Adam
 * step's achieved bandwidth, (where measured) collective constants, and the clock compute-bound
 * kernels sustain under the board's power limit. Every figure comes from
 * single-device or single-node measurements; none from end-to-end training runs.
 *
 * @param name              chip name, e.g. {@code h100-sxm}
 * @param description       where the figures come from, in a sentence
 * @param bf16Flops         dense bf16/fp16 peak, FLOP/s
 * @param fp8Flops          dense fp8 peak, FLOP/s, 0 without fp8 units
 * @param hbmBytes          memory capacity, bytes
 * @param hbmBytesPerS      nominal memory bandwidth, bytes/s
 * @param streamEfficiency  fraction of the bandwidth a well-written memory-bound kernel reaches
 * @param bf16Gemm          bf16/fp16 GEMM surface
 * @param fp8Gemm           fp8 GEMM surface, or null without fp8 units
 * @param attention         attention-core throughput tables
 * @param defaultAttention  the implementation current Megatron-core/Transformer Engine runs here
 * @param launch            kernel launch costs
 * @param kernels           kernels per memory-bound operation
 * @param adamBandwidthFraction fraction of the bandwidth the fused Adam step reaches
 * @param collectives       fitted collective constants, possibly none
 * @param commKernels       what communication kernels take from compute beside them, or null
 *                          when the profile does not say (overlap is then free)
 * @param sharding          ZeRO-3 frameworks' host time per hook ({@link ShardingHooks#NONE} when the
 *                          profile has no {@code sharding} section)
 * @param int8Gemm          int8 GEMM surface (TPU MXUs, for AQT int8 training), or null without one;
 *                          its peak is the profile's {@code peakTflops.int8}
 * @param mxfp8Gemm         MXFP8 (E4M3 with one E8M0 scale per 32 elements, Blackwell's block-scaled
 *                          tensor-core mode) GEMM surface, or null where none is measured; its peak
 *                          is the fp8 peak
 * @param nvfp4Gemm         NVFP4 (E2M1 with one E4M3 scale per 16 elements) GEMM surface, or null
 *                          without FP4 tensor cores; its peak is the profile's {@code peakTflops.fp4}
 * @param power             the sustained clock of compute-bound kernels under the board power limit
 *                          ({@link PowerLimit#NONE} when the profile has no {@code power} section: the
 *                          measured short-burst rates are used as they are)
 * @param hostSyncNs        what one device-to-host synchronisation leaves the GPU idle, ns (the
 *                          profile's {@code host.syncUs}; 0 where not given): the host waits for the
 *                          GPU to drain its queue and for a small D2H copy, then issues the next
 *                          kernel; the MoE token dispatchers' split sizes cost one per layer
 */
public record DeviceProfile(String name, String description, double bf16Flops, double fp8Flops, long hbmBytes,
                            double hbmBytesPerS, double streamEfficiency, GemmSurface bf16Gemm, GemmSurface fp8Gemm,
                            AttentionRates attention, AttentionImpl defaultAttention, Launch launch,
                            KernelCounts kernels, double adamBandwidthFraction,
                            List<CollectiveMeasurement> collectives, CommKernels commKernels,
                            ShardingHooks sharding, GemmSurface int8Gemm, GemmSurface mxfp8Gemm,
                            GemmSurface nvfp4Gemm, PowerLimit power, double hostSyncNs) {

    public DeviceProfile {
        if (!(hostSyncNs >= 0)) {
            throw new IllegalArgumentException("a host synchronisation cannot cost " + hostSyncNs + " ns");
        }
        collectives = List.copyOf(collectives);
        if (sharding == null) {
            sharding = ShardingHooks.NONE;
        }
        if (power == null) {
            power = PowerLimit.NONE;
        }
    }

    /** A profile without a {@code power} section: compute-bound kernels at their measured short-burst rates. */
    public DeviceProfile(String name, String description, double bf16Flops, double fp8Flops, long hbmBytes,
                         double hbmBytesPerS, double streamEfficiency, GemmSurface bf16Gemm, GemmSurface fp8Gemm,
                         AttentionRates attention, AttentionImpl defaultAttention, Launch launch,
                         KernelCounts kernels, double adamBandwidthFraction,
                         List<CollectiveMeasurement> collectives, CommKernels commKernels,
                         ShardingHooks sharding, GemmSurface int8Gemm, GemmSurface mxfp8Gemm,
                         GemmSurface nvfp4Gemm) {
        this(name, description, bf16Flops, fp8Flops, hbmBytes, hbmBytesPerS, streamEfficiency, bf16Gemm, fp8Gemm,
                attention, defaultAttention, launch, kernels, adamBandwidthFraction, collectives, commKernels,
                sharding, int8Gemm, mxfp8Gemm, nvfp4Gemm, PowerLimit.NONE, 0);
    }

    /** This profile with its kernels launched as {@code launch} says (CUDA graph replay: {@link Launch#graphReplay}). */
    public DeviceProfile withLaunch(Launch launch) {
        return new DeviceProfile(name, description, bf16Flops, fp8Flops, hbmBytes, hbmBytesPerS, streamEfficiency,
                bf16Gemm, fp8Gemm, attention, defaultAttention, launch, kernels, adamBandwidthFraction, collectives,
                commKernels, sharding, int8Gemm, mxfp8Gemm, nvfp4Gemm, power, hostSyncNs);
    }

    /** A profile without block-scaled (MXFP8, NVFP4) GEMM surfaces. */
    public DeviceProfile(String name, String description, double bf16Flops, double fp8Flops, long hbmBytes,
                         double hbmBytesPerS, double streamEfficiency, GemmSurface bf16Gemm, GemmSurface fp8Gemm,
                         AttentionRates attention, AttentionImpl defaultAttention, Launch launch,
                         KernelCounts kernels, double adamBandwidthFraction,
                         List<CollectiveMeasurement> collectives, CommKernels commKernels, ShardingHooks sharding,
                         GemmSurface int8Gemm) {
        this(name, description, bf16Flops, fp8Flops, hbmBytes, hbmBytesPerS, streamEfficiency, bf16Gemm, fp8Gemm,
                attention, defaultAttention, launch, kernels, adamBandwidthFraction, collectives, commKernels,
                sharding, int8Gemm, null, null);
    }

    /** A profile without an int8 GEMM surface. */
    public DeviceProfile(String name, String description, double bf16Flops, double fp8Flops, long hbmBytes,
                         double hbmBytesPerS, double streamEfficiency, GemmSurface bf16Gemm, GemmSurface fp8Gemm,
                         AttentionRates attention, AttentionImpl defaultAttention, Launch launch,
                         KernelCounts kernels, double adamBandwidthFraction,
                         List<CollectiveMeasurement> collectives, CommKernels commKernels, ShardingHooks sharding) {
        this(name, description, bf16Flops, fp8Flops, hbmBytes, hbmBytesPerS, streamEfficiency, bf16Gemm, fp8Gemm,
                attention, defaultAttention, launch, kernels, adamBandwidthFraction, collectives, commKernels,
                sharding, null);
    }

    /** A profile without ZeRO-3 hook costs. */
    public DeviceProfile(String name, String description, double bf16Flops, double fp8Flops, long hbmBytes,
                         double hbmBytesPerS, double streamEfficiency, GemmSurface bf16Gemm, GemmSurface fp8Gemm,
                         AttentionRates attention, AttentionImpl defaultAttention, Launch launch,
                         KernelCounts kernels, double adamBandwidthFraction,
                         List<CollectiveMeasurement> collectives) {
        this(name, description, bf16Flops, fp8Flops, hbmBytes, hbmBytesPerS, streamEfficiency, bf16Gemm, fp8Gemm,
                attention, defaultAttention, launch, kernels, adamBandwidthFraction, collectives, null,
                ShardingHooks.NONE);
    }

    /** The chip as the topology and the memory model see it. */
    public AcceleratorSpec accelerator() {
        return new AcceleratorSpec(name, bf16Flops, fp8Flops, hbmBytes, hbmBytesPerS,
                int8Gemm == null ? 0 : int8Gemm.peakFlops(), nvfp4Gemm == null ? 0 : nvfp4Gemm.peakFlops());
    }

    /**
     * Whether the tensor cores take FP8 operands in any layout, so a per-tensor FP8 copy needs no
     * transpose: Blackwell's (compute capability 10.x, Transformer Engine's
     * {@code nvte_is_non_tn_fp8_gemm_supported}), the chips with FP4 tensor cores among the
     * profiles; Hopper's take FP8 in the TN layout only.
     */
    public boolean anyLayoutFp8Gemm() {
        return nvfp4Gemm != null;
    }

    /** Achieved bandwidth of memory-bound kernels, bytes/s. */
    public double streamBytesPerS() {
        return hbmBytesPerS * streamEfficiency;
    }
}
