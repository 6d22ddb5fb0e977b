package org.clustersim.strategies.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.clustersim.strategies.cost.Precision;
import org.junit.jupiter.api.Test;

class GemmSurfaceTest {
    static final DeviceProfile H100 = DeviceProfiles.bundled("h100-sxm");

    @Test
    void everyMeasuredShapeIsReproducedUpToTheBestRate() {
        for (Precision p : new Precision[] {Precision.BF16, Precision.FP8}) {
            GemmSurface s = p.gemm(H100);
            assertTrue(s.points().size() >= 9, p + " points");
            for (GemmSurface.Point pt : s.points()) {
                double expected = Math.min(pt.flopsPerS(), s.bestFlops());
                assertEquals(expected, s.flopsPerSecond(pt.m(), pt.n(), pt.k()), 1e-9 * expected,
                        p + " " + pt);
            }
        }
    }

    @Test
    void betweenMeasuredShapesTheRateLiesBetweenItsNeighbours() {
        GemmSurface s = Precision.BF16.gemm(H100);
        double r3k = s.flopsPerSecond(3072, 3072, 3072);
        assertTrue(r3k > 641e12 && r3k < 780e12, "3072^3 between 2048^3 (641) and 4096^3 (780): " + r3k / 1e12);
        double thin = s.flopsPerSecond(4096, 4096, 768);
        assertTrue(thin > 552e12 && thin < 685e12, "k = 768 between k = 512 (552) and 1024 (685): " + thin / 1e12);
        // far from every measurement the base model alone decides, and it never beats the best rate
        assertEquals(s.baseNs(65536, 65536, 65536), s.ns(65536, 65536, 65536), 0.01 * s.baseNs(65536, 65536, 65536));
        assertTrue(s.flopsPerSecond(65536, 65536, 65536) <= s.bestFlops() * (1 + 1e-12));
    }

    @Test
    void smallShapesAreMemoryAndLatencyBound() {
        GemmSurface s = Precision.BF16.gemm(H100);
        assertTrue(s.flopsPerSecond(128, 128, 128) < 0.05 * s.bestFlops());
        assertTrue(s.ns(128, 128, 128) > 3_000, "a tiny GEMM still costs microseconds");
    }

    /** DeepGEMM's masked grouped FP8 GEMMs on H800 (kernels.md section 1): groups x rows at n x k = 4096 x 7168. */
    @Test
    void groupedGemmsMatchDeepGemmsMaskedLayouts() {
        GemmSurface s = Precision.FP8.gemm(H100);
        double[][] published = {{2, 512, 1040}, {4, 256, 932}};
        for (double[] row : published) {
            int groups = (int) row[0];
            double m = row[1];
            double rate = 2 * groups * m * 4096 * 7168 / (s.groupedNs(groups, m, 4096, 7168) / 1e9) / 1e12;
            assertEquals(row[2], rate, 0.08 * row[2], groups + " x " + m);
        }
        // the same rows as one expert run faster than split over four
        assertTrue(s.groupedNs(4, 256, 4096, 7168) > s.ns(1024, 4096, 7168));
    }
}
