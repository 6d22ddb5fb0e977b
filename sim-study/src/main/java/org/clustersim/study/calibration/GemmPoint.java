package org.clustersim.study.calibration;

/**
 * One measured matrix multiply: C (m x n) = A (m x k) B (k x n).
 *
 * @param precision the dtype
 * @param m         rows of A and C
 * @param n         columns of B and C
 * @param k         the reduction dimension
 * @param tflops    the measured rate, 2mnk / time / 1e12
 * @param source    the file it was read from
 * @param line      its line there
 */
public record GemmPoint(GemmPrecision precision, long m, long n, long k, double tflops, String source, int line) {
    /** W = 2mnk floating-point operations. */
    public double flops() {
        return 2.0 * m * n * k;
    }

    /** e (mk + kn + mn): each operand read once, the result written once. */
    public double bytes() {
        return precision.bytesPerElement() * ((double) m * k + (double) k * n + (double) m * n);
    }

    /** The measured time in microseconds. */
    public double timeUs() {
        return flops() / (tflops * 1e6);
    }

    /** "m x n x k" for messages. */
    public String shape() {
        return m + "x" + n + "x" + k;
    }
}
