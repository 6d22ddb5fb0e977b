package org.clustersim.strategies.device;

/**
 * What a GPU's board power limit does to its compute-bound kernels. Published GEMM and attention
 * rates (MAMF, XLA's tables, DeepGEMM, the FlashAttention papers) are short bursts: a few hundred
 * milliseconds of one kernel, before the power controller lowers the SM clock. A tensor-core
 * kernel that runs long enough draws the board to its limit and the clock settles lower: on the
 * H200 measured for this project 8192^3 bf16 GEMMs back to back held 671-678 TFLOP/s at
 * 1455-1530 MHz and 689-694 W of a 700 W limit, against 779 in short bursts
 * (docs/calibration/h200-device-2026-11-26.md). The cost model stretches the compute terms of
 * GEMMs and attention by {@code 1 / sustainedComputeFraction}; memory-bound kernels (HBM-bound,
 * far below the limit) and communication are untouched.
 *
 * @param limitW                   the board power limit the fraction was measured at, W (0 when none is given)
 * @param sustainedComputeFraction a compute-bound kernel's sustained rate over its short-burst rate, in (0, 1]
 */
public record PowerLimit(double limitW, double sustainedComputeFraction) {
    /** No derating (a profile without a {@code power} section). */
    public static final PowerLimit NONE = new PowerLimit(0, 1);

    public PowerLimit {
        if (!(limitW >= 0)) {
            throw new IllegalArgumentException("a power limit must not be negative");
        }
        if (!(sustainedComputeFraction > 0 && sustainedComputeFraction <= 1)) {
            throw new IllegalArgumentException("the sustained compute fraction must lie in (0, 1], not "
                    + sustainedComputeFraction);
        }
    }
}
