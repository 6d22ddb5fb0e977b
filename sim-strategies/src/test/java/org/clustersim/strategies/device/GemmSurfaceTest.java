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

    /**
     * Our H200 measurements of torch._grouped_mm at Qwen3-30B-A3B's expert shapes (128 experts;
     * fc1 n 1536 k 2048, fc2 n 2048 k 768; data/h200-kernels-2026-11-26.log), TFLOP/s at 32..1024
     * tokens per expert: the surface passes through them on both Hopper profiles, and between two
     * measured token counts lies between their times.
     */
    @Test
    void groupedGemmsOfSmallExpertsFollowTheMeasuredTable() {
        double[] tokens = {32, 64, 128, 256, 512, 1024};
        double[] fc1 = {85.8, 173.2, 355.3, 585.7, 658.5, 696.1};
        double[] fc2 = {74.2, 147.4, 288.5, 464.2, 537.1, 563.4};
        for (String name : new String[] {"h100-sxm", "h200-sxm"}) {
            GemmSurface s = DeviceProfiles.bundled(name).bf16Gemm();
            for (int i = 0; i < tokens.length; i++) {
                double m = tokens[i];
                double r1 = 2 * 128 * m * 1536 * 2048 / s.groupedNs(128, m, 1536, 2048) / 1e3;
                double r2 = 2 * 128 * m * 2048 * 768 / s.groupedNs(128, m, 2048, 768) / 1e3;
                assertEquals(fc1[i], r1, 0.01 * fc1[i], name + " fc1 at " + m);
                assertEquals(fc2[i], r2, 0.01 * fc2[i], name + " fc2 at " + m);
            }
            // 48 tokens per expert: within 10% of the 32- and 64-token kernels' times (both on the
            // weight-streaming floor, ~300 us); the interpolation of log ratios is not exactly flat
            double t = s.groupedNs(128, 48, 1536, 2048);
            double t32 = s.groupedNs(128, 32, 1536, 2048);
            double t64 = s.groupedNs(128, 64, 1536, 2048);
            assertTrue(t > 0.9 * Math.min(t32, t64) && t < 1.1 * Math.max(t32, t64), name + " 48 tokens: " + t);
            // far from the table (DeepGEMM's FP8 shapes have none) the base model alone decides
            GemmSurface f = Precision.FP8.gemm(DeviceProfiles.bundled(name));
            assertEquals(f.groupedBaseNs(4, 256, 4096, 7168), f.groupedNs(4, 256, 4096, 7168), 1e-9);
        }
    }

    /**
     * GPT-OSS 120B's experts on one H100 (16 local experts at EP 8; fc1 n 5760 k 2880, fc2 n 2880 k
     * 2880, fc1's data gradient n 2880 k 5760; data/h100-gpt-oss-kernels-2026-11-26.log), TFLOP/s at
     * 256..2048 tokens per expert: h100-sxm passes through them (its base model alone was 6-15% fast
     * there), and 768 tokens lies between 512 and 1024.
     */
    @Test
    void gptOssExpertGemmsFollowTheH100Measurements() {
        GemmSurface s = DeviceProfiles.bundled("h100-sxm").bf16Gemm();
        double[] tokens = {256, 512, 1024, 2048};
        double[][] nk = {{5760, 2880}, {2880, 2880}, {2880, 5760}};
        double[][] measured = {{544.2, 678.5, 744.1, 774.4}, {509.5, 664.3, 706.5, 723.3}, {566.1, 716.6, 743.0, 752.2}};
        for (int j = 0; j < nk.length; j++) {
            double n = nk[j][0];
            double k = nk[j][1];
            for (int i = 0; i < tokens.length; i++) {
                double rate = 2 * 16 * tokens[i] * n * k / s.groupedNs(16, tokens[i], n, k) / 1e3;
                assertEquals(measured[j][i], rate, 0.01 * measured[j][i], n + " x " + k + " at " + tokens[i]);
            }
            double r768 = 2 * 16 * 768 * n * k / s.groupedNs(16, 768, n, k) / 1e3;
            assertTrue(r768 > measured[j][1] && r768 < measured[j][2], n + " x " + k + " at 768: " + r768);
        }
    }
}
