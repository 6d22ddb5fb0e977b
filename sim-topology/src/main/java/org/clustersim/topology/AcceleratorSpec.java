package org.clustersim.topology;

/**
 * Published figures of one accelerator model, used by cost models.
 *
 * <p>Peaks are dense (no sparsity). {@code gemmEfficiency} is the best large-GEMM throughput
 * measured on a single device divided by the bf16 peak (for example H100 SXM: 795 of 989
 * TFLOP/s); it is calibrated from single-device measurements only, never from end-to-end
 * training results.
 *
 * @param name             preset name, e.g. {@code h100-sxm}
 * @param bf16Flops        dense bf16/fp16 peak in FLOP/s
 * @param fp8Flops         dense fp8 peak in FLOP/s, or 0 where the chip has no fp8 units
 * @param hbmBytes         memory capacity in bytes
 * @param hbmBytesPerS     memory bandwidth in bytes per second
 * @param gemmEfficiency   best achieved fraction of peak on large GEMMs, in (0, 1]
 */
public record AcceleratorSpec(String name, double bf16Flops, double fp8Flops, long hbmBytes, double hbmBytesPerS,
                              double gemmEfficiency) {
    public AcceleratorSpec {
        if (!(bf16Flops > 0) || fp8Flops < 0 || hbmBytes <= 0 || !(hbmBytesPerS > 0)) {
            throw new IllegalArgumentException("accelerator figures must be positive: " + name);
        }
        if (!(gemmEfficiency > 0 && gemmEfficiency <= 1)) {
            throw new IllegalArgumentException("gemmEfficiency must be in (0, 1]: " + gemmEfficiency);
        }
    }

    /** A100 SXM 80GB: 312 TFLOP/s bf16, 2.04 TB/s; best large GEMM 271 TFLOP/s. */
    public static final AcceleratorSpec A100_SXM_80GB =
            new AcceleratorSpec("a100-sxm-80gb", 312e12, 0, 80_000_000_000L, 2.04e12, 271.0 / 312.0);
    /** H100 SXM: 989 TFLOP/s bf16, 1979 fp8, 3.35 TB/s; best large GEMM 795 TFLOP/s. */
    public static final AcceleratorSpec H100_SXM =
            new AcceleratorSpec("h100-sxm", 989e12, 1979e12, 80_000_000_000L, 3.35e12, 795.0 / 989.0);
}
