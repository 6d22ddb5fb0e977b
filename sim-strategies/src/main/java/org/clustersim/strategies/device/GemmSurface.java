package org.clustersim.strategies.device;

import java.util.List;

/**
 * Time of one matrix multiply (m x k) by (k x n) on one device at one precision, from measured
 * shapes. A roofline-like base model carries the shape dependence between and beyond the
 * measurements: {@code t = max(W / best, a W / P + c bytes / B + t0)} with W = 2mnk, bytes =
 * e(mk + kn + mn), P the dense peak and B the HBM bandwidth (a, c, t0 fitted to the measured
 * points by least squares on relative error, best the best measured rate). Each measured point
 * then corrects the base by its own ratio, interpolated in log2(m, n, k) space with inverse
 * fourth-power distance weights against a prior weight for the base model (Shepard
 * interpolation): the surface reproduces every measured shape exactly, follows the nearest
 * measurements between them, and returns to the base model a few octaves away from all of them.
 *
 * <p>Two physical bounds hold whatever the base model and the corrections say: no product runs
 * faster than {@code W / best}, nor faster than its operands' bytes through HBM at the nominal
 * bandwidth ({@link #streamingNs}). The second is needed because the fitted memory factor c is
 * below 1 on most profiles (h100-sxm bf16: 0.46), so where no measured point is near (a
 * weight-streaming shape with m = 16) the base model read the 8192 x 8192 bf16 weights at
 * 5.0 TB/s on an H100, whose HBM gives 3.35 (measured: 2.81 TB/s,
 * docs/calibration/h100-device-2026-11-26.md). The bound is the nominal bandwidth, not the
 * profile's streaming efficiency: that is a copy kernel's read-and-write rate, which
 * read-dominated streams beat (the H100 read 3.08 TB/s, 0.92 of nominal, against a 0.90 copy),
 * and measured points beat it too (gb200 bf16 64 x 6144 x 4096 at 0.84 of nominal against
 * 0.82; h100-sxm's grouped 128 x 128 x 1536 x 2048, an H200 measurement, at 0.95 against 0.90):
 * only the nominal bandwidth bounds every kernel, so every measured point stays reproduced.
 *
 * @param peakFlops      dense peak of the precision, FLOP/s
 * @param hbmBytesPerS   nominal memory bandwidth, bytes/s
 * @param bytesPerElement operand size, bytes
 * @param bestFlops      best achieved rate on large shapes, FLOP/s (a ceiling)
 * @param computeFactor  a
 * @param memoryFactor   c
 * @param fixedNs        t0, ns
 * @param points         measured shapes
 * @param tile           systolic-array width (a TPU MXU: 128, or 256 on v6e), or 0: the compute terms count
 *                       n and k rounded up to whole tiles and m to whole 8-row sublane groups, the work an
 *                       MXU does on a padded operand (the JAX scaling book: matrix dimensions that are not
 *                       multiples of the MXU size waste its cycles)
 * @param clockFraction  the SM clock the surface is read at over the clock its points and ceiling were
 *                       measured at (short bursts), in (0, 1]: 1 as measured; below 1 (a long run held at
 *                       the board's power limit, {@link PowerLimit}) the compute term {@code a W / P} and the
 *                       ceiling {@code W / best} stretch by its inverse while the memory term and t0 stay, and
 *                       each measured point's correction ratio is kept against the base model at the
 *                       measured clock. A compute-bound shape (the ceiling binding) takes exactly 1 / fraction
 *                       longer, a memory-bound one about as long as measured
 * @param grouped        measured grouped GEMMs (MoE experts), which pull {@link #groupedNs} to themselves
 *                       as the points pull {@link #ns}; empty where none are measured
 */
public record GemmSurface(double peakFlops, double hbmBytesPerS, double bytesPerElement, double bestFlops,
                          double computeFactor, double memoryFactor, double fixedNs, List<Point> points, int tile,
                          double clockFraction, List<GroupedPoint> grouped) {

    /** A surface read at the clock it was measured at. */
    public GemmSurface(double peakFlops, double hbmBytesPerS, double bytesPerElement, double bestFlops,
                       double computeFactor, double memoryFactor, double fixedNs, List<Point> points, int tile,
                       List<GroupedPoint> grouped) {
        this(peakFlops, hbmBytesPerS, bytesPerElement, bestFlops, computeFactor, memoryFactor, fixedNs, points, tile,
                1, grouped);
    }

    /** A surface read at the clock it was measured at, without measured grouped GEMMs. */
    public GemmSurface(double peakFlops, double hbmBytesPerS, double bytesPerElement, double bestFlops,
                       double computeFactor, double memoryFactor, double fixedNs, List<Point> points, int tile) {
        this(peakFlops, hbmBytesPerS, bytesPerElement, bestFlops, computeFactor, memoryFactor, fixedNs, points, tile,
                1, List.of());
    }

    /** A surface without a systolic-array tile (GPUs). */
    public GemmSurface(double peakFlops, double hbmBytesPerS, double bytesPerElement, double bestFlops,
                       double computeFactor, double memoryFactor, double fixedNs, List<Point> points) {
        this(peakFlops, hbmBytesPerS, bytesPerElement, bestFlops, computeFactor, memoryFactor, fixedNs, points, 0);
    }

    /** The same measurements read at {@code fraction} of the measured clock (see {@code clockFraction}). */
    public GemmSurface atClock(double fraction) {
        return fraction == clockFraction ? this : new GemmSurface(peakFlops, hbmBytesPerS, bytesPerElement, bestFlops,
                computeFactor, memoryFactor, fixedNs, points, tile, fraction, grouped);
    }

    /** Distance (octaves) at which a measured point weighs as much as the base model. */
    static final double PRIOR_RADIUS = 2.0;

    /**
     * One measured shape.
     *
     * @param m rows of the left operand
     * @param n columns of the right operand
     * @param k inner dimension
     * @param flopsPerS measured rate, FLOP/s
     */
    public record Point(double m, double n, double k, double flopsPerS) {
    }

    /**
     * One measured grouped GEMM: {@code groups} products of (m x k) by (k x n), each with its own
     * weights, in one kernel.
     *
     * @param groups    products (experts)
     * @param m         rows of each product (tokens per expert)
     * @param n         columns of each product's right operand
     * @param k         inner dimension
     * @param flopsPerS measured rate over all groups, FLOP/s
     */
    public record GroupedPoint(int groups, double m, double n, double k, double flopsPerS) {
    }

    public GemmSurface {
        points = List.copyOf(points);
        grouped = List.copyOf(grouped);
        if (!(clockFraction > 0 && clockFraction <= 1)) {
            throw new IllegalArgumentException("a clock fraction lies in (0, 1], not " + clockFraction);
        }
    }

    /** The base model alone at the surface's clock, ns. */
    public double baseNs(double m, double n, double k) {
        return baseNs(m, n, k, clockFraction);
    }

    /** The base model at {@code clock} times the measured clock, ns. */
    private double baseNs(double m, double n, double k, double clock) {
        double w = tile > 0 ? 2 * padded(m, 8) * padded(n, tile) * padded(k, tile) : 2 * m * n * k;
        double bytes = bytesPerElement * (m * k + k * n + m * n);
        double model = computeFactor * w / (peakFlops * clock) * 1e9 + memoryFactor * bytes / hbmBytesPerS * 1e9
                + fixedNs;
        return Math.max(w / (bestFlops * clock) * 1e9, model);
    }

    /** Nanoseconds for an (m x k) by (k x n) product. */
    public double ns(double m, double n, double k) {
        if (m <= 0 || n <= 0 || k <= 0) {
            return 0;
        }
        double base = baseNs(m, n, k);
        double floor = Math.max(2 * m * n * k / (bestFlops * clockFraction) * 1e9, streamingNs(m, n, k));
        if (points.isEmpty()) {
            return Math.max(floor, base);
        }
        double[][] at = new double[points.size()][];
        double[] ratios = new double[points.size()];
        for (int i = 0; i < points.size(); i++) {
            Point p = points.get(i);
            at[i] = new double[] {log2(p.m), log2(p.n), log2(p.k)};
            ratios[i] = Math.log(2 * p.m * p.n * p.k / p.flopsPerS * 1e9 / baseNs(p.m, p.n, p.k, 1));
        }
        return Math.max(floor, base * Math.exp(shepard(new double[] {log2(m), log2(n), log2(k)}, at, ratios)));
    }

    /**
     * A grouped GEMM (MoE experts): {@code groups} products of (m x k) by (k x n), each with its
     * own weights, in one kernel. Two bounds enclose it: one product of groups x m rows (the
     * grouped kernel fills the GPU as one large GEMM would) and groups separate products of m
     * rows (each group's tiles as poorly filled as alone). The base is their geometric mean,
     * which reproduces DeepGEMM's masked grouped FP8 GEMMs on H800 (1 x 1024, 2 x 512, 4 x 256
     * rows at n x k = 4096 x 7168: 1233, 1040, 932 TFLOP/s) within about 5%; and it cannot beat
     * streaming every group's operands through memory at the nominal bandwidth. Measured grouped
     * GEMMs ({@link #grouped}) then pull the base to themselves as the dense points pull {@link
     * #ns}: the log of measured over base time is interpolated in log2(groups, m, n, k) with
     * inverse fourth-power distance weights against the base model's prior weight, so a measured
     * grouped shape is reproduced exactly and the correction fades a few octaves away. Below the
     * measured clock each correction is kept against the base model at the measured clock. The
     * corrected time, like the dense one, is no shorter than the ceiling's W / best nor than streaming
     * every expert's operands ({@code groups} times {@link #streamingNs}): a correction measured
     * at more tokens per expert must not make fewer tokens read the weights faster than HBM can.
     */
    public double groupedNs(int groups, double m, double n, double k) {
        if (groups == 1) {
            return ns(m, n, k);
        }
        if (m <= 0 || n <= 0 || k <= 0) {
            return 0;
        }
        double base = groupedBaseNs(groups, m, n, k);
        double floor = Math.max(2 * groups * m * n * k / (bestFlops * clockFraction) * 1e9,
                groups * streamingNs(m, n, k));
        if (grouped.isEmpty()) {
            return Math.max(floor, base);
        }
        GemmSurface measured = atClock(1);
        double[][] at = new double[grouped.size()][];
        double[] ratios = new double[grouped.size()];
        for (int i = 0; i < grouped.size(); i++) {
            GroupedPoint p = grouped.get(i);
            at[i] = new double[] {log2(p.groups), log2(p.m), log2(p.n), log2(p.k)};
            ratios[i] = Math.log(2 * p.groups * p.m * p.n * p.k / p.flopsPerS * 1e9
                    / measured.groupedBaseNs(p.groups, p.m, p.n, p.k));
        }
        double correction = shepard(new double[] {log2(groups), log2(m), log2(n), log2(k)}, at, ratios);
        return Math.max(floor, base * Math.exp(correction));
    }

    /**
     * Shepard interpolation of measured log corrections: the correction at {@code query} (log2
     * coordinates) from those measured at {@code at}, weighted by inverse fourth powers of the
     * distance against the base model's prior weight ({@link #PRIOR_RADIUS}); a measurement at the
     * query itself stands alone.
     */
    private static double shepard(double[] query, double[][] at, double[] ratios) {
        double weights = 1 / (PRIOR_RADIUS * PRIOR_RADIUS * PRIOR_RADIUS * PRIOR_RADIUS);
        double sum = 0;
        for (int i = 0; i < at.length; i++) {
            double d2 = 0;
            for (int j = 0; j < query.length; j++) {
                double d = query[j] - at[i][j];
                d2 += d * d;
            }
            if (d2 < 1e-12) {
                return ratios[i];
            }
            weights += 1 / (d2 * d2);
            sum += ratios[i] / (d2 * d2);
        }
        return sum / weights;
    }

    /** The grouped GEMM's base model alone (geometric mean of the two bounds, no faster than streaming), ns. */
    public double groupedBaseNs(int groups, double m, double n, double k) {
        double fused = ns(groups * m, n, k);
        double separate = groups * ns(m, n, k);
        return Math.max(Math.sqrt(fused * separate), groups * streamingNs(m, n, k));
    }

    /**
     * Moving the operands of one (m x k) by (k x n) product through HBM once, the left and right
     * operands read and the result written ({@code e (mk + kn + mn)} bytes), at the nominal
     * bandwidth, ns: no product is faster (see the class comment for why nominal). Operands
     * padded to a systolic array's tiles are counted unpadded: the padding is the MXU's, not
     * memory traffic.
     */
    public double streamingNs(double m, double n, double k) {
        return bytesPerElement * (m * k + k * n + m * n) / hbmBytesPerS * 1e9;
    }

    /** Achieved FLOP/s on that shape. */
    public double flopsPerSecond(double m, double n, double k) {
        return 2 * m * n * k / (ns(m, n, k) / 1e9);
    }

    private static double padded(double x, int unit) {
        return Math.ceil(x / unit) * unit;
    }

    private static double log2(double x) {
        return Math.log(x) / Math.log(2);
    }
}
