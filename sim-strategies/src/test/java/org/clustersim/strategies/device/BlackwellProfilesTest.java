package org.clustersim.strategies.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

import org.junit.jupiter.api.Test;

/**
 * The bundled Blackwell profiles (b200, gb200, b300, gb300) against the measurements they come from
 * (docs/calibration/blackwell-kernels.md and its CSV files) and against orderings no measurement
 * gives but the hardware does.
 */
class BlackwellProfilesTest {
    private static final Path DOCS = Path.of("..", "docs", "calibration");
    private static final List<String> BLACKWELL = List.of("b200", "gb200", "b300", "gb300");
    /** Powers of two from 16 to 32768: the shapes the orderings are checked on. */
    private static final List<Double> SIZES = List.of(16.0, 64.0, 256.0, 1024.0, 2048.0, 4096.0, 8192.0, 16384.0,
            32768.0);
    /** The profiles hold four significant digits; a derived constant rounded there may move a rate this much. */
    private static final double ROUNDING = 1e-3;

    private record Row(double m, double n, double k, String dtype, double tflops) {
    }

    private static List<Row> csv(String file) throws IOException {
        List<Row> rows = new ArrayList<>();
        List<String> header = null;
        for (String line : Files.readAllLines(DOCS.resolve(file))) {
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("#")) {
                continue;
            }
            List<String> cells = List.of(t.split(",", -1)).stream().map(String::strip).toList();
            if (header == null) {
                header = cells;
                continue;
            }
            rows.add(new Row(Double.parseDouble(cells.get(header.indexOf("m"))),
                    Double.parseDouble(cells.get(header.indexOf("n"))), Double.parseDouble(cells.get(header.indexOf("k"))),
                    cells.get(header.indexOf("dtype")).toLowerCase(Locale.ROOT),
                    Double.parseDouble(cells.get(header.indexOf("tflops")))));
        }
        return rows;
    }

    private static GemmSurface surface(DeviceProfile p, String dtype) {
        return switch (dtype) {
            case "bf16" -> p.bf16Gemm();
            case "fp8" -> p.fp8Gemm();
            case "mxfp8" -> p.mxfp8Gemm();
            case "nvfp4" -> p.nvfp4Gemm();
            default -> throw new IllegalArgumentException(dtype);
        };
    }

    private static void reproduces(String profile, List<Row> rows) {
        DeviceProfile p = DeviceProfiles.bundled(profile);
        for (Row r : rows) {
            GemmSurface s = surface(p, r.dtype());
            assertNotNull(s, profile + " " + r.dtype());
            assertTrue(s.points().stream().anyMatch(q -> q.m() == r.m() && q.n() == r.n() && q.k() == r.k()
                            && Math.abs(q.flopsPerS() / 1e12 - r.tflops()) < 1e-9),
                    profile + " " + r.dtype() + " holds the measured " + r);
            assertEquals(r.tflops(), s.flopsPerSecond(r.m(), r.n(), r.k()) / 1e12, r.tflops() * 1e-9,
                    profile + " " + r.dtype() + " reproduces " + r);
        }
    }

    @Test
    void b200AndB300ReproduceEveryMeasuredGemmShape() throws IOException {
        List<Row> b200 = csv("b200-gemm.csv");
        b200.addAll(csv("b200-nvfp4-gemm.csv"));
        assertEquals(18 + 8 + 17, b200.size(), "bf16, fp8 and nvfp4 shapes");
        reproduces("b200", b200);
        reproduces("b300", csv("b300-gemm.csv"));
        assertEquals(b200.stream().filter(r -> r.dtype().equals("bf16")).count(),
                DeviceProfiles.bundled("b200").bf16Gemm().points().size(), "no point the CSV does not hold");
    }

    @Test
    void theMamfBestsAreTheCeilings() {
        // stas00/ml-engineering MAMF tables: best torch.matmul over a brute-force shape search
        assertEquals(1745.0, DeviceProfiles.bundled("b200").bf16Gemm().bestFlops() / 1e12, 1e-9);
        assertEquals(3432.5, DeviceProfiles.bundled("b200").fp8Gemm().bestFlops() / 1e12, 1e-9);
        assertEquals(1822.0, DeviceProfiles.bundled("gb200").bf16Gemm().bestFlops() / 1e12, 1e-9);
        assertEquals(3615.6, DeviceProfiles.bundled("gb200").fp8Gemm().bestFlops() / 1e12, 1e-9);
        assertEquals(1769.0, DeviceProfiles.bundled("b300").bf16Gemm().bestFlops() / 1e12, 1e-9);
        assertEquals(3353.3, DeviceProfiles.bundled("b300").fp8Gemm().bestFlops() / 1e12, 1e-9);
    }

    /**
     * Transformer Engine's GEMM benchmark on a B300 (docs/examples/gemm_profiling): the twelve GEMMs of
     * one layer (hidden 4096, ffn 16384, 15872 tokens; fprop, dgrad, wgrad of QKV, attention out, MLP up
     * and down), operands pre-quantised, per layer: BF16 13.102 ms, FP8 (per tensor) 6.812, MXFP8
     * 7.161, NVFP4 3.764. The low-precision surfaces were fitted to these sums (one constant each); the
     * bf16 one holds only the four fprop shapes, so its layer sum is a check.
     */
    @Test
    void b300ReproducesTransformerEnginesMeasuredLayerSums() {
        DeviceProfile p = DeviceProfiles.bundled("b300");
        assertEquals(6.812, layerMs(p.fp8Gemm()), 6.812 * 0.005);
        assertEquals(7.161, layerMs(p.mxfp8Gemm()), 7.161 * 0.005);
        assertEquals(3.764, layerMs(p.nvfp4Gemm()), 3.764 * 0.005);
        assertEquals(13.102, layerMs(p.bf16Gemm()), 13.102 * 0.06, "bf16 check: the fit is to the fprop shapes");
        double fprop = 0;
        for (double[] s : TE_FPROP) {
            fprop += p.bf16Gemm().ns(s[0], s[1], s[2]);
        }
        assertEquals(4.196, fprop / 1e6, 2e-3, "TE's bf16 fprop sum, 1.071 + 0.307 + 1.393 + 1.426 ms (rates kept to 0.1 TFLOP/s)");
    }

    /** m, n, k of the four fprop GEMMs (TE writes them M x K x N). */
    private static final double[][] TE_FPROP = {{15872, 12288, 4096}, {15872, 4096, 4096}, {15872, 16384, 4096},
            {15872, 4096, 16384}};

    private static double layerMs(GemmSurface s) {
        double ns = 0;
        for (double[] f : TE_FPROP) {
            double m = f[0];
            double n = f[1];
            double k = f[2];
            ns += s.ns(m, n, k) + s.ns(m, k, n) + s.ns(k, n, m); // fprop, dgrad, wgrad
        }
        return ns / 1e6;
    }

    /**
     * cuDNN's forward as FlashAttention's benchmark_attn.py measured it (flash-attention PR 2605): 32k
     * tokens, heads x d = 2048, on SM100 at the script's B200 peak (2250) and on GB200 (2500).
     */
    @Test
    void theMeasuredCudnnForwardRatesAreTheTables() {
        AttentionRates b200 = DeviceProfiles.bundled("b200").attention();
        AttentionRates gb200 = DeviceProfiles.bundled("gb200").attention();
        double[] lengths = {1024, 2048, 4096, 8192, 16384};
        double[][] b200d64 = {{846, 861, 890, 901, 906}, {501, 657, 770, 838, 872}};
        double[][] gb200d64 = {{980, 1072, 1118, 1147, 1157}, {627, 826, 977, 1071, 1115}};
        for (int i = 0; i < lengths.length; i++) {
            for (int mask = 0; mask < 2; mask++) {
                boolean causal = mask == 1;
                assertEquals(b200d64[mask][i], cudnnForward(b200, 64, causal, lengths[i]), 1e-9);
                assertEquals(gb200d64[mask][i], cudnnForward(gb200, 64, causal, lengths[i]), 1e-9);
            }
        }
        assertEquals(1156, cudnnForward(b200, 128, false, 1024), 1e-9);
        assertEquals(1428, cudnnForward(gb200, 128, false, 1024), 1e-9);
        for (String name : List.of("b300", "gb300")) {
            assertEquals(AttentionImpl.CUDNN, DeviceProfiles.bundled(name).defaultAttention(), name);
        }
    }

    private static double cudnnForward(AttentionRates r, int d, boolean causal, double s) {
        return r.rate(AttentionImpl.CUDNN, AttentionPass.FORWARD, d, causal, s) / 1e12;
    }

    /** Fewer bits a product never slower on large shapes: nvfp4 >= mxfp8 >= bf16, and fp8 >= bf16. */
    @Test
    void lowerPrecisionIsNeverSlowerOnLargeShapes() {
        for (String name : BLACKWELL) {
            DeviceProfile p = DeviceProfiles.bundled(name);
            for (double m : List.of(4096.0, 8192.0, 16384.0)) {
                for (double n : List.of(4096.0, 8192.0, 16384.0)) {
                    for (double k : List.of(4096.0, 8192.0, 16384.0)) {
                        double bf16 = p.bf16Gemm().flopsPerSecond(m, n, k);
                        double fp8 = p.fp8Gemm().flopsPerSecond(m, n, k);
                        double mxfp8 = p.mxfp8Gemm().flopsPerSecond(m, n, k);
                        double nvfp4 = p.nvfp4Gemm().flopsPerSecond(m, n, k);
                        String at = name + " " + (long) m + "x" + (long) n + "x" + (long) k;
                        assertTrue(fp8 >= bf16, at + ": fp8 " + fp8 + " < bf16 " + bf16);
                        assertTrue(mxfp8 >= bf16, at + ": mxfp8 " + mxfp8 + " < bf16 " + bf16);
                        assertTrue(nvfp4 >= mxfp8, at + ": nvfp4 " + nvfp4 + " < mxfp8 " + mxfp8);
                    }
                }
            }
        }
    }

    /**
     * The rack parts run the same silicon at a higher power limit and clocks (GB200 1200 W against
     * B200's 1000 W; GB300 1400 W against B300's 1000 W): never slower at any GEMM shape and precision,
     * any attention table, or memory-bound op.
     */
    @Test
    void theRackPartsAreNeverSlowerThanTheirBoards() {
        notSlower("b200", "gb200");
        notSlower("b300", "gb300");
    }

    private static void notSlower(String board, String rack) {
        DeviceProfile b = DeviceProfiles.bundled(board);
        DeviceProfile r = DeviceProfiles.bundled(rack);
        List<Function<DeviceProfile, GemmSurface>> precisions = List.of(DeviceProfile::bf16Gemm,
                DeviceProfile::fp8Gemm, DeviceProfile::mxfp8Gemm, DeviceProfile::nvfp4Gemm);
        for (int i = 0; i < precisions.size(); i++) {
            GemmSurface sb = precisions.get(i).apply(b);
            GemmSurface sr = precisions.get(i).apply(r);
            for (double m : SIZES) {
                for (double n : SIZES) {
                    for (double k : SIZES) {
                        assertTrue(sr.ns(m, n, k) <= sb.ns(m, n, k) * (1 + ROUNDING), rack + " slower than " + board
                                + " at " + (long) m + "x" + (long) n + "x" + (long) k + " (surface " + i + ")");
                    }
                }
            }
        }
        for (AttentionPass pass : List.of(AttentionPass.FORWARD, AttentionPass.BACKWARD)) {
            for (int d : new int[] {64, 96, 128, 192, 256}) {
                for (boolean causal : new boolean[] {false, true}) {
                    for (double s = 512; s <= 131072; s *= 2) {
                        double rb = b.attention().rate(AttentionImpl.CUDNN, pass, d, causal, s);
                        double rr = r.attention().rate(AttentionImpl.CUDNN, pass, d, causal, s);
                        assertTrue(rr >= rb, rack + " attention slower than " + board + ": " + pass + " d " + d
                                + " causal " + causal + " s " + s);
                    }
                }
            }
        }
        assertTrue(r.streamBytesPerS() >= b.streamBytesPerS(), rack + " streams slower than " + board);
    }

    /** A memory-bound op moves its bytes at bandwidth x efficiency: Blackwell's 8 TB/s is never slower there. */
    @Test
    void moreHbmBandwidthIsNeverSlowerForMemoryBoundOps() {
        for (String older : List.of("h100-sxm", "h200-sxm")) {
            DeviceProfile h = DeviceProfiles.bundled(older);
            for (String name : BLACKWELL) {
                DeviceProfile p = DeviceProfiles.bundled(name);
                assertTrue(p.hbmBytesPerS() > h.hbmBytesPerS());
                assertTrue(p.streamBytesPerS() > h.streamBytesPerS(), name + " streams slower than " + older);
                assertTrue(p.adamBandwidthFraction() * p.hbmBytesPerS() > h.adamBandwidthFraction() * h.hbmBytesPerS(),
                        name + " optimizer step slower than " + older);
            }
        }
    }
}
