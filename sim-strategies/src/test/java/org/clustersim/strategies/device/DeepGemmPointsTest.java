package org.clustersim.strategies.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The FP8 points of the H100-class profiles are DeepGEMM's published rows with their shapes in
 * the README's order (github deepseek-ai/DeepGEMM README.md, commit 8002b76: columns M, N, K,
 * TFLOPS, GB/s; kernels.md section 1). The README's memory-bandwidth column fixes which of N and
 * K is which: fp8 A (m x k) and B (n x k), bf16 output (m x n) over the kernel's time.
 */
class DeepGemmPointsTest {
    /** m, n, k, TFLOP/s, GB/s: the dense rows and the masked rows of one 1024-row group. */
    static final double[][] README = {
        {64, 2112, 7168, 206, 1688}, {64, 24576, 1536, 289, 2455}, {64, 7168, 16384, 336, 2668},
        {128, 2112, 7168, 352, 1509}, {128, 4096, 7168, 533, 2221}, {128, 7168, 16384, 645, 2604},
        {4096, 2112, 7168, 1009, 503}, {4096, 32768, 512, 751, 1569}, {4096, 7168, 16384, 1426, 361},
        {1024, 4096, 7168, 1233, 924}, {1024, 7168, 2048, 925, 968}};

    @Test
    void theReadmeRowsAreReadWithNThenK() {
        for (double[] r : README) {
            double m = r[0];
            double n = r[1];
            double k = r[2];
            double seconds = 2 * m * n * k / (r[3] * 1e12);
            double gbps = (m * k + n * k + 2 * m * n) / seconds / 1e9;
            assertEquals(r[4], gbps, 0.01 * r[4], "GB/s of " + m + " x " + n + " x " + k);
        }
    }

    @Test
    void everyFp8PointOfTheH100ClassProfilesIsAReadmeRowAsPublished() {
        for (String name : List.of("h100-sxm", "h200-sxm")) {
            List<GemmSurface.Point> points = DeviceProfiles.bundled(name).fp8Gemm().points();
            assertEquals(README.length, points.size(), name);
            for (GemmSurface.Point p : points) {
                boolean found = false;
                for (double[] r : README) {
                    found |= p.m() == r[0] && p.n() == r[1] && p.k() == r[2] && p.flopsPerS() == r[3] * 1e12;
                }
                assertTrue(found, name + ": " + p + " is no README row (n and k swapped?)");
            }
        }
    }
}
