package org.clustersim.study.calibration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.clustersim.core.input.InputError;
import org.junit.jupiter.api.Test;

class GemmFitTest {
    static final Path FIXTURES = Path.of("src", "test", "resources", "calibration");

    @Test
    void theModelIsTheRooflineWithOverheadsUnderTheCeiling() {
        // a = 1, c = 1, t0 = 5 us, peak 1000 TFLOP/s, HBM 2 TB/s, ceiling 500 TFLOP/s; 1024^3 bf16:
        // W = 2^31 flop -> 2.147483648 us at peak; bytes = 2 x 3 x 2^20 -> 3.145728 us at 2 TB/s;
        // 2.147483648 + 3.145728 + 5 = 10.293211648 us, above the ceiling's W / 500 TFLOP/s = 4.29 us
        GemmFit f = new GemmFit(GemmPrecision.BF16, 500, true, 1, 1, 5, 1000, 2, List.of());
        assertEquals(10.293211648, f.timeUs(1024, 1024, 1024), 1e-9);
        // a large square multiply is held at the ceiling: 16384^3 -> 8.796e12 flop / 500e12 = 17592.186 us
        assertEquals(2.0 * 16384 * 16384 * 16384 / 500e6, f.timeUs(16384, 16384, 16384), 1e-6);
        // fp8 counts one byte per element
        GemmFit fp8 = new GemmFit(GemmPrecision.FP8, 500, true, 1, 1, 5, 1000, 2, List.of());
        assertEquals(2.147483648 + 3.145728 / 2 + 5, fp8.timeUs(1024, 1024, 1024), 1e-9);
    }

    @Test
    void recoversTheConstantsOfPointsTheModelItselfProduced() {
        // points made by a = 1.057, c = 0.485, t0 = 5.41 us (the cost model's current H100 constants)
        // on a spread of shapes; the fit must give them back, to the four digits it keeps
        double a = 1.057;
        double c = 0.485;
        double t0 = 5.41;
        List<GemmPoint> points = new ArrayList<>();
        long[][] shapes = {{256, 512, 256}, {1024, 256, 4096}, {4096, 4096, 256}, {2048, 2048, 2048},
            {512, 8192, 1024}, {8192, 1024, 512}, {128, 128, 16384}, {4096, 4096, 4096}};
        for (long[] s : shapes) {
            GemmPoint shape = new GemmPoint(GemmPrecision.BF16, s[0], s[1], s[2], 1, "synthetic", 0);
            double t = a * shape.flops() / 989e6 + c * shape.bytes() / 3.35e6 + t0;
            points.add(new GemmPoint(GemmPrecision.BF16, s[0], s[1], s[2], shape.flops() / t / 1e6, "synthetic", 0));
        }
        GemmFit f = GemmFit.fit(points, 989, 3.35, Optional.of(989.0)).orElseThrow();
        assertEquals(a, f.computeFactor(), 0);
        assertEquals(c, f.memoryFactor(), 0);
        assertEquals(t0, f.fixedUs(), 0);
        assertEquals(0, f.rmsResidual(), 1e-3, "the rounded constants reproduce the points to 0.1%");
    }

    @Test
    void theShippedH100Bf16TableFitsWithinItsStatedBounds() {
        List<InputError> errors = new ArrayList<>();
        List<GemmPoint> points = GemmMeasurements.read(List.of(FIXTURES.resolve("h100-bf16-gemm.csv")), errors)
                .byPrecision().get(GemmPrecision.BF16);
        assertEquals(List.of(), errors);
        assertEquals(24, points.size(), "12 from hardware.md, 12 more from XLA's table");
        GemmFit f = GemmFit.fit(points, 989, 3.35, Optional.empty()).orElseThrow();
        // expected constants computed independently (numpy lstsq on the same relative-error rows)
        assertEquals(780, f.bestTflops(), 0, "hardware.md's 4096^3, the fastest point");
        assertEquals(1.023, f.computeFactor(), 0);
        assertEquals(0.4589, f.memoryFactor(), 0);
        assertEquals(6.182, f.fixedUs(), 0);
        // stated bound: every published point within 22% in time, 9.5% rms
        for (GemmPoint p : points) {
            assertTrue(Math.abs(f.residual(p)) < 0.22, p.shape() + " residual " + f.residual(p));
        }
        assertTrue(f.rmsResidual() < 0.095, "rms " + f.rmsResidual());
        assertEquals("256x256x2048", f.worst().shape());
        // the fastest shape sits on the ceiling
        assertEquals(780, f.modelTflops(points.get(points.size() - 1)), 1e-9);
    }

    @Test
    void hardwareMdAloneGivesBackTheEarlierCostModelsConstants() {
        // the cost model before device profiles used 1.057, 0.485 and 5.41 us, fitted the same way to
        // hardware.md's 12 shapes (the first block of the fixture, lines 10 to 21)
        List<InputError> errors = new ArrayList<>();
        List<GemmPoint> points = GemmMeasurements.read(List.of(FIXTURES.resolve("h100-bf16-gemm.csv")), errors)
                .byPrecision().get(GemmPrecision.BF16).stream().filter(p -> p.line() <= 21).toList();
        assertEquals(12, points.size());
        GemmFit f = GemmFit.fit(points, 989, 3.35, Optional.empty()).orElseThrow();
        assertEquals(1.057, f.computeFactor(), 0);
        assertEquals(0.4849, f.memoryFactor(), 0);
        assertEquals(5.411, f.fixedUs(), 0);
    }

    @Test
    void theDeepGemmFp8TableFitsWithinItsStatedBounds() {
        List<InputError> errors = new ArrayList<>();
        List<GemmPoint> points = GemmMeasurements.read(List.of(FIXTURES.resolve("h800-fp8-deepgemm.csv")), errors)
                .byPrecision().get(GemmPrecision.FP8);
        assertEquals(List.of(), errors);
        GemmFit f = GemmFit.fit(points, 1979, 3.35, Optional.empty()).orElseThrow();
        assertEquals(1426, f.bestTflops(), 0);
        assertEquals(1.409, f.computeFactor(), 0);
        assertEquals(0.7247, f.memoryFactor(), 0);
        assertEquals(4.242, f.fixedUs(), 0);
        // stated bound: within 27% in time (the worst, 4096 x 32768 x 512 with its thin k, -26%), 13% rms
        // (eleven shapes, six of them small-m and HBM-bound)
        for (GemmPoint p : points) {
            assertTrue(Math.abs(f.residual(p)) < 0.27, p.shape() + " residual " + f.residual(p));
        }
        assertTrue(f.rmsResidual() < 0.13, "rms " + f.rmsResidual());
    }

    @Test
    void aSingularSystemIsReportedNotSolved() {
        double[][] singular = {{1, 2, 3}, {2, 4, 6}, {1, 0, 1}};
        assertTrue(GemmFit.solve(singular, new double[] {1, 2, 3}).isEmpty());
        double[] x = GemmFit.solve(new double[][] {{2, 1, 0}, {1, 3, 1}, {0, 1, 4}}, new double[] {3, 5, 5})
                .orElseThrow();
        assertEquals(1, x[0], 1e-12);
        assertEquals(1, x[1], 1e-12);
        assertEquals(1, x[2], 1e-12);
    }
}
