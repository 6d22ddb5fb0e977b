package org.clustersim.strategies.cost;

import org.clustersim.topology.AcceleratorSpec;

/**
 * Time of one matrix multiply (m x k) by (k x n) on one accelerator, from its shape:
 * {@code t = max(W / (P e_best), a W / P + c bytes / B_hbm + t0)} where W = 2mnk, bytes =
 * e(mk + kn + mn) the operands and result at e bytes per element, P the dense peak, B_hbm the
 * memory bandwidth and e_best the best large-GEMM fraction of peak.
 *
 * <p>a = 1.057, c = 0.485 and t0 = 5.4 us were fitted (least squares on relative error) to
 * the single-device H100 SXM bf16 GEMM measurements of the shared hardware reference, twelve
 * shapes from 1024^3 (253 TFLOP/s) to 4096^3 (780), with thin-k and thin-m cases; the fit is
 * within 14% on every shape (13% off at 512x4096x4096) and 5% on most. The same form scales to other chips through their
 * own peak, bandwidth and best fraction (an assumption where no measurements are given).
 * End-to-end training results are never used to calibrate it.
 *
 * @param peakFlops     dense peak of the precision, FLOP/s
 * @param bestFraction  best achieved fraction of peak on large GEMMs
 * @param hbmBytesPerS  memory bandwidth
 * @param bytesPerElement operand element size
 */
public record GemmModel(double peakFlops, double bestFraction, double hbmBytesPerS, int bytesPerElement) {
    static final double COMPUTE_FACTOR = 1.057;
    static final double MEMORY_FACTOR = 0.485;
    static final double FIXED_NS = 5_410;

    /** The model for a chip and precision. */
    public static GemmModel of(AcceleratorSpec chip, Precision precision) {
        double peak = precision.peak(chip);
        if (!(peak > 0)) {
            throw new IllegalArgumentException(chip.name() + " has no " + precision + " peak");
        }
        return new GemmModel(peak, chip.gemmEfficiency(), chip.hbmBytesPerS(), precision.bytesPerElement());
    }

    /** Nanoseconds for an (m x k) by (k x n) product. */
    public double ns(double m, double n, double k) {
        double w = 2 * m * n * k;
        double bytes = bytesPerElement * (m * k + k * n + m * n);
        double fitted = COMPUTE_FACTOR * w / peakFlops * 1e9 + MEMORY_FACTOR * bytes / hbmBytesPerS * 1e9 + FIXED_NS;
        return Math.max(w / (peakFlops * bestFraction) * 1e9, fitted);
    }

    /** Achieved FLOP/s on that shape. */
    public double flopsPerSecond(double m, double n, double k) {
        return 2 * m * n * k / (ns(m, n, k) / 1e9);
    }

    /** Nanoseconds to stream {@code bytes} through memory (element-wise work). */
    public double memoryNs(double bytes) {
        return bytes / hbmBytesPerS * 1e9;
    }
}
