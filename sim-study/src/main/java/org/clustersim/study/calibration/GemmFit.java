package org.clustersim.study.calibration;

import java.util.List;
import java.util.Optional;

/**
 * The GEMM model of a device profile for one dtype, fitted to measured shapes.
 *
 * <p>The cost model times a multiply of shape (m, n, k) as
 * <pre>
 *   time(m, n, k) = max( W / bestTflops,
 *                        computeFactor * W / peak + memoryFactor * bytes / hbmBandwidth + fixedUs )
 *   W = 2mnk,  bytes = e (mk + kn + mn),  e = 2 for bf16, 1 for fp8
 * </pre>
 * where peak is the chip's dense peak for the dtype and hbmBandwidth is
 * {@code memory.bandwidthTBps}, both from the base profile. The first term is a ceiling: no
 * shape runs faster than the best rate measured (or given). The second is a roofline with
 * overheads: computeFactor &gt;= 1 is how far large multiplies stay from the peak, memoryFactor
 * how much of the operands' traffic is exposed, fixedUs the launch and tail cost of one kernel.
 *
 * <p>Fitting: bestTflops is the largest measured rate unless given. The three other constants
 * minimise the sum over the points of ((a x1 + c x2 + t0 - t) / t)^2 with x1 = W / peak,
 * x2 = bytes / hbmBandwidth and t the measured time: least squares on relative error, so that a
 * 10 us multiply counts as much as a 10 ms one. The 3x3 normal equations are solved in closed
 * form (Gaussian elimination with partial pivoting, points in (m, n, k) order), so the same
 * points give the same constants, bit for bit. The constants are then rounded to four
 * significant digits, and every figure reported (model rates, residuals) uses the rounded ones:
 * what the profile will hold.
 *
 * @param precision      the dtype
 * @param bestTflops     the ceiling rate
 * @param bestGiven      whether bestTflops was given rather than the largest measured
 * @param computeFactor  a
 * @param memoryFactor   c
 * @param fixedUs        t0, microseconds
 * @param peakTflops     the dense peak used for x1
 * @param bandwidthTBps  the HBM bandwidth used for x2
 * @param points         the measurements, sorted by (m, n, k)
 */
public record GemmFit(GemmPrecision precision, double bestTflops, boolean bestGiven, double computeFactor,
                      double memoryFactor, double fixedUs, double peakTflops, double bandwidthTBps,
                      List<GemmPoint> points) {

    /**
     * Fits the model to {@code points} (at least three).
     *
     * @param best the ceiling rate to use, or empty for the largest measured
     * @return empty when the points do not determine three constants (their normal equations are singular)
     */
    public static Optional<GemmFit> fit(List<GemmPoint> points, double peakTflops, double bandwidthTBps,
                                        Optional<Double> best) {
        double[][] a = new double[3][3];
        double[] b = new double[3];
        for (GemmPoint p : points) {
            double t = p.timeUs();
            double[] row = {x1(p.flops(), peakTflops) / t, x2(p.bytes(), bandwidthTBps) / t, 1 / t};
            for (int i = 0; i < 3; i++) {
                for (int j = 0; j < 3; j++) {
                    a[i][j] += row[i] * row[j];
                }
                b[i] += row[i];
            }
        }
        Optional<double[]> solved = solve(a, b);
        if (solved.isEmpty()) {
            return Optional.empty();
        }
        double[] x = solved.get();
        double max = points.stream().mapToDouble(GemmPoint::tflops).max().orElseThrow();
        return Optional.of(new GemmFit(points.get(0).precision(), best.orElse(max), best.isPresent(),
                ProfileNumber.fitted(x[0]), ProfileNumber.fitted(x[1]), ProfileNumber.fitted(x[2]), peakTflops,
                bandwidthTBps, List.copyOf(points)));
    }

    /** W / peak in microseconds. */
    private static double x1(double flops, double peakTflops) {
        return flops / (peakTflops * 1e6);
    }

    /** bytes / bandwidth in microseconds. */
    private static double x2(double bytes, double bandwidthTBps) {
        return bytes / (bandwidthTBps * 1e6);
    }

    /** Gaussian elimination with partial pivoting; empty when a pivot vanishes relative to the matrix. */
    static Optional<double[]> solve(double[][] matrix, double[] rhs) {
        int n = rhs.length;
        double[][] a = new double[n][];
        double[] b = rhs.clone();
        double scale = 0;
        for (int i = 0; i < n; i++) {
            a[i] = matrix[i].clone();
            for (double v : a[i]) {
                scale = Math.max(scale, Math.abs(v));
            }
        }
        for (int col = 0; col < n; col++) {
            int pivot = col;
            for (int r = col + 1; r < n; r++) {
                if (Math.abs(a[r][col]) > Math.abs(a[pivot][col])) {
                    pivot = r;
                }
            }
            if (!(Math.abs(a[pivot][col]) > 1e-12 * scale)) {
                return Optional.empty();
            }
            double[] tr = a[col];
            a[col] = a[pivot];
            a[pivot] = tr;
            double tb = b[col];
            b[col] = b[pivot];
            b[pivot] = tb;
            for (int r = col + 1; r < n; r++) {
                double f = a[r][col] / a[col][col];
                for (int c = col; c < n; c++) {
                    a[r][c] -= f * a[col][c];
                }
                b[r] -= f * b[col];
            }
        }
        double[] x = new double[n];
        for (int r = n - 1; r >= 0; r--) {
            double s = b[r];
            for (int c = r + 1; c < n; c++) {
                s -= a[r][c] * x[c];
            }
            x[r] = s / a[r][r];
        }
        return Optional.of(x);
    }

    /** The model's time for a shape, microseconds. */
    public double timeUs(long m, long n, long k) {
        GemmPoint shape = new GemmPoint(precision, m, n, k, 1, "", 0);
        double w = shape.flops();
        double fitted = computeFactor * x1(w, peakTflops) + memoryFactor * x2(shape.bytes(), bandwidthTBps) + fixedUs;
        return Math.max(w / (bestTflops * 1e6), fitted);
    }

    /** The model's rate for a measured point's shape, TFLOP/s. */
    public double modelTflops(GemmPoint p) {
        return p.flops() / (timeUs(p.m(), p.n(), p.k()) * 1e6);
    }

    /** (model time - measured time) / measured time. */
    public double residual(GemmPoint p) {
        return (timeUs(p.m(), p.n(), p.k()) - p.timeUs()) / p.timeUs();
    }

    /** The root mean square of the residuals. */
    public double rmsResidual() {
        double s = 0;
        for (GemmPoint p : points) {
            s += residual(p) * residual(p);
        }
        return Math.sqrt(s / points.size());
    }

    /** The point with the largest residual in magnitude (the first such, in (m, n, k) order). */
    public GemmPoint worst() {
        GemmPoint worst = points.get(0);
        for (GemmPoint p : points) {
            if (Math.abs(residual(p)) > Math.abs(residual(worst))) {
                worst = p;
            }
        }
        return worst;
    }
}
