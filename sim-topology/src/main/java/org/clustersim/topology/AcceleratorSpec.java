package org.clustersim.topology;

/**
 * Published figures of one accelerator model, used by cost models.
 *
 * <p>Peaks are dense (no sparsity). How fast kernels actually run on the chip (GEMM shapes,
 * attention, memory-bound kernels, launches) is not here but in its device profile, which the
 * cost model reads; a profile's peaks and memory figures build this record for the cluster.
 *
 * @param name             preset name, e.g. {@code h100-sxm}
 * @param bf16Flops        dense bf16/fp16 peak in FLOP/s
 * @param fp8Flops         dense fp8 peak in FLOP/s, or 0 where the chip has no fp8 units
 * @param hbmBytes         memory capacity in bytes
 * @param hbmBytesPerS     memory bandwidth in bytes per second
 * @param int8Flops        dense int8 peak in OP/s where int8 training is modelled (TPU MXUs), else 0
 * @param fp4Flops         dense FP4 (NVFP4 / MXFP4) peak in FLOP/s on chips with FP4 tensor cores
 *                         (Blackwell), else 0
 */
public record AcceleratorSpec(String name, double bf16Flops, double fp8Flops, long hbmBytes, double hbmBytesPerS,
                              double int8Flops, double fp4Flops) {
    public AcceleratorSpec {
        if (!(bf16Flops > 0) || fp8Flops < 0 || int8Flops < 0 || fp4Flops < 0 || hbmBytes <= 0
                || !(hbmBytesPerS > 0)) {
            throw new IllegalArgumentException("accelerator figures must be positive: " + name);
        }
    }

    /** A chip without FP4 tensor cores. */
    public AcceleratorSpec(String name, double bf16Flops, double fp8Flops, long hbmBytes, double hbmBytesPerS,
                           double int8Flops) {
        this(name, bf16Flops, fp8Flops, hbmBytes, hbmBytesPerS, int8Flops, 0);
    }

    /** A chip without a modelled int8 mode. */
    public AcceleratorSpec(String name, double bf16Flops, double fp8Flops, long hbmBytes, double hbmBytesPerS) {
        this(name, bf16Flops, fp8Flops, hbmBytes, hbmBytesPerS, 0);
    }

    /** A100 SXM 80GB: 312 TFLOP/s bf16, 2.04 TB/s. */
    public static final AcceleratorSpec A100_SXM_80GB =
            new AcceleratorSpec("a100-sxm-80gb", 312e12, 0, 80_000_000_000L, 2.04e12);
    /** TPU v4: 275 TFLOP/s bf16 and int8 (one rate), 32 GiB at 1.2 TB/s (Google Cloud's v4 page). */
    public static final AcceleratorSpec TPU_V4 = new AcceleratorSpec("tpu-v4", 275e12, 0, 34_359_738_368L, 1.2e12,
            275e12);
    /** TPU v5e: 197 TFLOP/s bf16, 394 TOP/s int8, 16 GiB at 819 GB/s (Google Cloud's v5e page). */
    public static final AcceleratorSpec TPU_V5E = new AcceleratorSpec("tpu-v5e", 197e12, 0, 17_179_869_184L,
            0.819e12, 394e12);
    /**
     * TPU v5p: 459 TFLOP/s bf16, 918 TOP/s int8 (scaling book), 95 GiB usable at 2765 GB/s (Google
     * Cloud's v5p page, whose FP8 row equals bf16: no fp8 mode).
     */
    public static final AcceleratorSpec TPU_V5P = new AcceleratorSpec("tpu-v5p", 459e12, 0, 102_005_473_280L,
            2.765e12, 918e12);
    /** TPU v6e: 918 TFLOP/s bf16, 1836 TOP/s int8, 32 GB at 1640 GB/s (Google Cloud's v6e page). */
    public static final AcceleratorSpec TPU_V6E = new AcceleratorSpec("tpu-v6e", 918e12, 0, 32_000_000_000L, 1.64e12,
            1836e12);
    /**
     * One TensorCore chiplet of a TPU7x (Ironwood) chip, which JAX sees as one device: half the
     * chip's 2307 TFLOP/s bf16 and 4614 fp8, 192 GiB and 7380 GB/s (Google Cloud's tpu7x page).
     * Google publishes no int8 rate for TPU7x, so none is modelled.
     */
    public static final AcceleratorSpec TPU_7X = new AcceleratorSpec("tpu-7x", 1153.5e12, 2307e12, 103_079_215_104L,
            3.69e12);

    /**
     * B200 (HGX/DGX B200, 1000 W): 2250 TFLOP/s bf16, 4500 fp8, 9000 fp4 dense, 192 GB at 8 TB/s
     * (NVIDIA's HGX B200 datasheet: 8 GPUs 36 / 72 / 144 PFLOP/s sparse for FP16, FP8, FP4, dense
     * half of that).
     */
    public static final AcceleratorSpec B200 = new AcceleratorSpec("b200", 2250e12, 4500e12, 192_000_000_000L, 8e12,
            0, 9000e12);
    /**
     * B200 in a GB200 NVL72 rack (1200 W, beside a Grace CPU): 2500 TFLOP/s bf16, 5000 fp8, 10000
     * fp4 dense, 186 GB at 8 TB/s (NVIDIA's GB200 NVL72 datasheet: 72 GPUs 360 / 720 / 1440
     * PFLOP/s sparse for FP16, FP8, FP4, 13.4 TB of HBM3e at 576 TB/s).
     */
    public static final AcceleratorSpec GB200 = new AcceleratorSpec("gb200", 2500e12, 5000e12, 186_000_000_000L,
            8e12, 0, 10000e12);
    /**
     * Blackwell Ultra in a GB300 NVL72 rack: 2500 TFLOP/s bf16, 5000 fp8, 15000 fp4 dense, 288 GB
     * at 8 TB/s (NVIDIA's GB300 NVL72 datasheet: 72 GPUs 360 / 720 PFLOP/s sparse FP16 / FP8,
     * 1080 PFLOP/s dense FP4, 20.7 TB of HBM3e at 576 TB/s).
     */
    public static final AcceleratorSpec GB300 = new AcceleratorSpec("gb300", 2500e12, 5000e12, 288_000_000_000L,
            8e12, 0, 15000e12);
    /**
     * B300 (HGX/DGX B300): 2250 TFLOP/s bf16, 4500 fp8, 13500 fp4 dense, 288 GB at 8 TB/s (NVIDIA's
     * HGX B300 datasheet: 8 GPUs 36 / 72 PFLOP/s sparse FP16 / FP8, 108 PFLOP/s dense FP4, 2.3 TB).
     */
    public static final AcceleratorSpec B300 = new AcceleratorSpec("b300", 2250e12, 4500e12, 288_000_000_000L, 8e12,
            0, 13500e12);

    /** H200 SXM: the H100's compute (989 / 1979 TFLOP/s) with 141 GB of HBM3e at 4.8 TB/s. */
    public static final AcceleratorSpec H200_SXM =
            new AcceleratorSpec("h200-sxm", 989e12, 1979e12, 141_000_000_000L, 4.8e12);

    /** H100 SXM: 989 TFLOP/s bf16, 1979 fp8, 3.35 TB/s. */
    public static final AcceleratorSpec H100_SXM =
            new AcceleratorSpec("h100-sxm", 989e12, 1979e12, 80_000_000_000L, 3.35e12);
}
