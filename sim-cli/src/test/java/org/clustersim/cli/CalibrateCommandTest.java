package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import java.util.HashSet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import org.clustersim.core.input.Diagnostics;
import org.clustersim.core.input.SourceTreeReader;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.device.DeviceProfile;
import org.clustersim.strategies.device.DeviceProfileReader;
import org.clustersim.strategies.device.DeviceProfiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CalibrateCommandTest {
    static final Path FIXTURES = Path.of("..", "sim-study", "src", "test", "resources", "calibration");
    static final Path DOCS = Path.of("..", "docs", "calibration");
    static final String GEMM = FIXTURES.resolve("h100-bf16-gemm.csv").toString();
    static final String FP8 = FIXTURES.resolve("h800-fp8-deepgemm.csv").toString();
    static final String ATTENTION = FIXTURES.resolve("h100-attention.csv").toString();
    static final String NCCL = FIXTURES.resolve("all_reduce_perf-8xh100-nvls.txt").toString();

    @TempDir
    Path dir;

    private static String[] all(String... more) {
        List<String> args = new ArrayList<>(List.of("calibrate", "--base", "h100-sxm", "--gemm", GEMM, "--gemm", FP8,
                "--attention", ATTENTION, "--memory-bandwidth", "3.01", "--nccl", NCCL));
        args.addAll(List.of(more));
        return args.toArray(new String[0]);
    }

    @Test
    void buildsTheWholeProfileFromThePublishedTables() throws IOException {
        Path out = dir.resolve("h100.yaml");
        ClusterSimTest.Result r = ClusterSimTest.cli(all("-o", out.toString()));
        assertEquals(0, r.code(), r.err());
        JsonNode p = new YAMLMapper().readTree(out.toFile());
        List<String> sections = new ArrayList<>();
        p.fieldNames().forEachRemaining(sections::add);
        assertEquals(List.of("name", "description", "peakTflops", "power", "memory", "gemm", "attention", "launch", "host", "kernels",
                "optimizer", "communication", "sharding", "collectives"), sections, "the base's sections, in their order");
        assertEquals("h100-sxm", p.get("name").asText());
        assertEquals(1979, p.at("/peakTflops/fp8").asInt(), "kept from the base");
        assertEquals(80, p.at("/memory/capacityGB").asInt(), "kept from the base");
        assertEquals(3.35, p.at("/memory/bandwidthTBps").asDouble(), 0);
        assertEquals(0.8985, p.at("/memory/streamEfficiency").asDouble(), 0, "3.01 / 3.35 to four digits");
        JsonNode bf16 = p.at("/gemm/bf16/model");
        assertEquals(780, bf16.get("bestTflops").asDouble(), 0);
        assertEquals(1.023, bf16.get("computeFactor").asDouble(), 0);
        assertEquals(0.4589, bf16.get("memoryFactor").asDouble(), 0);
        assertEquals(6.182, bf16.get("fixedUs").asDouble(), 0);
        JsonNode points = p.at("/gemm/bf16/points");
        assertEquals(24, points.size());
        assertEquals("[256,256,2048,31.1]", points.get(0).toString(), "sorted by (m, n, k)");
        assertEquals("[4096,4096,4096,780]", points.get(23).toString());
        assertEquals(1.409, p.at("/gemm/fp8/model/computeFactor").asDouble(), 0);
        JsonNode tables = p.at("/attention/tables");
        assertEquals(24, tables.size(), "3 kernels x 6 forward shapes + 3 x 2 backward");
        assertEquals("{\"impl\":\"cudnn\",\"pass\":\"backward\",\"headDim\":64,\"causal\":false,\"points\":[[512,266],"
                + "[2048,395],[16384,433]]}", tables.get(0).toString());
        assertEquals("{\"impl\":\"flash2\",\"pass\":\"forward\",\"headDim\":64,\"causal\":false,\"points\":[[512,282],"
                + "[2048,318],[16384,324]]}", tables.get(10).toString());
        assertEquals("{\"op\":\"all_reduce\",\"medium\":\"nvlink\",\"ranks\":8,\"latencyUs\":13.67,"
                + "\"busBandwidthGBps\":480.4}", p.get("collectives").get(0).toString());
        assertTrue(r.out().contains("#   bestTflops 780 (largest measured), computeFactor 1.023, memoryFactor 0.4589, "
                + "fixedUs 6.182"), r.out());
        assertTrue(r.out().contains("#        256      512      256       11.5       10.6     +8.7%"), r.out());
        assertTrue(r.out().contains("# wrote " + out), r.out());
    }

    /**
     * The round trip: calibrating the bundled H100 profile from the published tables under
     * docs/calibration/ (with MAMF's ceilings) gives back the bundled profile, field for field.
     */
    @Test
    void theShippedH100ProfileIsWhatCalibrateFitsToThePublishedTables() {
        Path out = dir.resolve("h100.yaml");
        ClusterSimTest.Result r = ClusterSimTest.cli(all("--gemm-best", "bf16=794.5", "--gemm-best", "fp8=1402.6",
                "-o", out.toString()));
        assertEquals(0, r.code(), r.err());
        Diagnostics d = new Diagnostics(out);
        DeviceProfile calibrated = new DeviceProfileReader(d).read(new SourceTreeReader().read(out), "").orElseThrow();
        d.throwIfAny();
        DeviceProfile shipped = DeviceProfiles.bundled("h100-sxm");
        assertEquals(Precision.BF16.gemm(shipped), Precision.BF16.gemm(calibrated));
        assertEquals(Precision.FP8.gemm(shipped), Precision.FP8.gemm(calibrated));
        assertEquals(new HashSet<>(shipped.attention().curves()), new HashSet<>(calibrated.attention().curves()));
        assertEquals(shipped.streamEfficiency(), calibrated.streamEfficiency(), 0);
        assertEquals(shipped.collectives(), calibrated.collectives());
        // the power section is not measured by calibrate: it passes through from the base, so the calibrated
        // surfaces hold short-burst rates like the shipped ones and the cost model derates both alike
        assertEquals(shipped.power(), calibrated.power());
        // and the whole profile, once the attention tables are in the same order
        assertEquals(shipped, new DeviceProfile(calibrated.name(), calibrated.description(), calibrated.bf16Flops(),
                calibrated.fp8Flops(), calibrated.hbmBytes(), calibrated.hbmBytesPerS(), calibrated.streamEfficiency(),
                calibrated.bf16Gemm(), calibrated.fp8Gemm(), shipped.attention(), calibrated.defaultAttention(),
                calibrated.launch(), calibrated.kernels(), calibrated.adamBandwidthFraction(),
                calibrated.collectives(), calibrated.commKernels(), calibrated.sharding(), calibrated.int8Gemm(),
                calibrated.mxfp8Gemm(), calibrated.nvfp4Gemm(), calibrated.power(), calibrated.hostSyncNs()));
    }

    @Test
    void theSameInputGivesTheSameBytesAndStdoutIsItselfAProfile() throws IOException {
        Path a = dir.resolve("a.yaml");
        Path b = dir.resolve("b.yaml");
        assertEquals(0, ClusterSimTest.cli(all("-o", a.toString())).code());
        assertEquals(0, ClusterSimTest.cli(all("-o", b.toString())).code());
        assertArrayEquals(Files.readAllBytes(a), Files.readAllBytes(b));
        ClusterSimTest.Result stdout = ClusterSimTest.cli(all());
        assertEquals(0, stdout.code(), stdout.err());
        String text = stdout.out();
        String report = text.substring(0, text.indexOf("\nname:") + 1);
        assertTrue(report.lines().allMatch(l -> l.startsWith("#")), "every report line is a YAML comment");
        assertEquals(Files.readString(a), text.substring(report.length()), "then exactly the profile");
        assertEquals(new YAMLMapper().readTree(a.toFile()), new YAMLMapper().readTree(text));
        assertTrue(Files.readString(a).contains("    model: {bestTflops: 780, computeFactor: 1.023, memoryFactor: "
                + "0.4589, fixedUs: 6.182}\n    points:\n      - [256, 256, 2048, 31.1]\n"), "the profile's layout");
    }

    @Test
    void aGivenCeilingAndNameAreWrittenAsGiven() throws IOException {
        Path out = dir.resolve("p.yaml");
        ClusterSimTest.Result r = ClusterSimTest.cli("calibrate", "--base", "h100-sxm", "--gemm", GEMM, "--gemm-best",
                "bf16=794.5", "--name", "my-h100", "-o", out.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode p = new YAMLMapper().readTree(out.toFile());
        assertEquals("my-h100", p.get("name").asText());
        assertEquals(794.5, p.at("/gemm/bf16/model/bestTflops").asDouble(), 0);
        assertEquals(1.023, p.at("/gemm/bf16/model/computeFactor").asDouble(), 0, "the ceiling is not fitted");
        assertTrue(r.out().contains("bestTflops 794.5 (given)"), r.out());
    }

    @Test
    void onlyTheMeasuredEntriesOfTheBaseAreReplaced() throws IOException {
        Path base = dir.resolve("base.yaml");
        Files.writeString(base, """
                name: h100-sxm
                peakTflops: {bf16: 989, fp8: 1979}
                launch: {overheadUs: 4}
                gemm:
                  fp8:
                    model: {bestTflops: 1400, computeFactor: 1.2, memoryFactor: 0.5, fixedUs: 5}
                  bf16:
                    source: "vendor table"
                    model: {bestTflops: 700, computeFactor: 1, memoryFactor: 1, fixedUs: 1}
                attention:
                  default: {impl: flash3}
                  tables:
                    - {impl: standard, pass: forward, headDim: 64, causal: false, points: [[512, 100]]}
                    - {impl: flash2, pass: forward, headDim: 64, causal: false, points: [[512, 1]]}
                memory: {capacityGB: 80, bandwidthTBps: 3.35, streamEfficiency: 0.9}
                collectives:
                  - {op: all_reduce, medium: network, ranks: 16, latencyUs: 40, busBandwidthGBps: 45}
                  - {op: all_reduce, medium: nvlink, ranks: 8, latencyUs: 1, busBandwidthGBps: 1}
                """);
        Path out = dir.resolve("p.yaml");
        ClusterSimTest.Result r = ClusterSimTest.cli("calibrate", "--base", base.toString(), "--gemm", GEMM,
                "--attention", ATTENTION, "--nccl", NCCL, "-o", out.toString());
        assertEquals(0, r.code(), r.err());
        String text = Files.readString(out);
        JsonNode p = new YAMLMapper().readTree(text);
        List<String> sections = new ArrayList<>();
        p.fieldNames().forEachRemaining(sections::add);
        assertEquals(List.of("name", "peakTflops", "launch", "gemm", "attention", "memory", "collectives"), sections);
        assertEquals(4, p.at("/launch/overheadUs").asInt());
        assertEquals(1400, p.at("/gemm/fp8/model/bestTflops").asInt(), "an unmeasured dtype is kept");
        assertEquals("vendor table", p.at("/gemm/bf16/source").asText(), "other keys of a measured entry are kept");
        assertEquals(1.023, p.at("/gemm/bf16/model/computeFactor").asDouble(), 0);
        assertEquals(0.9, p.at("/memory/streamEfficiency").asDouble(), 0, "not measured, kept");
        assertEquals("flash3", p.at("/attention/default/impl").asText());
        JsonNode tables = p.at("/attention/tables");
        assertEquals(25, tables.size(), "24 measured, flash2 forward d64 replaced, standard kept");
        assertEquals("standard", tables.get(24).get("impl").asText(), "sorted: cudnn, flash2, flash3, standard");
        assertEquals(282, tables.get(10).at("/points/0/1").asInt(), "the measured flash2 table replaced the base's");
        JsonNode coll = p.get("collectives");
        assertEquals(2, coll.size());
        assertEquals("network", coll.get(0).get("medium").asText(), "sorted by op, medium, ranks");
        assertEquals(13.67, coll.get(1).get("latencyUs").asDouble(), 0);
        assertTrue(text.contains("    source: \"vendor table\"\n"), text);
    }

    @Test
    void attentionTimesBecomeRatesByTheFlashAttentionConvention() throws IOException {
        // seconds for the published rates, batch x seqLen = 16k tokens and heads x headDim = 2048: forward
        // 4 b s^2 h d (halved if causal), backward 2.5 times that; reading them back must give the rates
        Path csv = dir.resolve("seconds.csv");
        StringBuilder sb = new StringBuilder("impl,pass,headDim,causal,seqLen,batch,heads,seconds\n");
        Object[][] rows = {{"flash2", "forward", 64, false, 512, 282.0}, {"flash3", "forward", 128, true, 2048, 521.0},
            {"cudnn", "backward", 128, false, 16384, 516.0}};
        for (Object[] row : rows) {
            int d = (Integer) row[2];
            int s = (Integer) row[4];
            long b = 16384 / s;
            long h = 2048 / d;
            double flops = 4.0 * b * s * s * h * d / ((Boolean) row[3] ? 2 : 1) * (row[1].equals("backward") ? 2.5 : 1);
            sb.append(String.format(java.util.Locale.ROOT, "%s,%s,%d,%s,%d,%d,%d,%.9e%n", row[0], row[1], d, row[3], s,
                    b, h, flops / ((Double) row[5] * 1e12)));
        }
        Files.writeString(csv, sb.toString());
        Path out = dir.resolve("p.yaml");
        ClusterSimTest.Result r = ClusterSimTest.cli("calibrate", "--base", "h100-sxm", "--attention", csv.toString(),
                "-o", out.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode tables = new YAMLMapper().readTree(out.toFile()).at("/attention/tables");
        assertEquals("[[16384,516]]", table(tables, "cudnn", "backward", 128, false).get("points").toString());
        assertEquals("[[512,282]]", table(tables, "flash2", "forward", 64, false).get("points").toString());
        assertEquals("[[2048,521]]", table(tables, "flash3", "forward", 128, true).get("points").toString());
        assertEquals("[[512,266],[2048,395],[16384,433]]", table(tables, "cudnn", "backward", 64, false)
                .get("points").toString(), "a table not measured is kept from the base");
    }

    private static JsonNode table(JsonNode tables, String impl, String pass, int headDim, boolean causal) {
        for (JsonNode t : tables) {
            if (t.get("impl").asText().equals(impl) && t.get("pass").asText().equals(pass)
                    && t.get("headDim").asInt() == headDim && t.get("causal").asBoolean() == causal) {
                return t;
            }
        }
        throw new AssertionError("no " + impl + " " + pass + " d" + headDim + " table");
    }

    @Test
    void aSpecialFileIsWrittenToNotReplaced() {
        Path devNull = Path.of("/dev/null");
        if (!Files.exists(devNull)) {
            return;
        }
        ClusterSimTest.Result r = ClusterSimTest.cli("calibrate", "--base", "h100-sxm", "--memory-bandwidth", "3.01",
                "-o", devNull.toString());
        assertEquals(0, r.code(), r.err());
        assertFalse(Files.isRegularFile(devNull));
    }

    static Stream<Arguments> rejections() {
        String h = "m,n,k,dtype,tflops\n";
        String ok = "256,512,256,bf16,11.5\n1024,256,256,bf16,22\n256,256,2048,bf16,31.1\n";
        String a = "impl,pass,headDim,causal,seqLen,tflops\n";
        return Stream.of(
                Arguments.of("gemm", "m,n,dtype,tflops\n" + ok, ":1: header: found no column 'k', expected m, n, k, "
                        + "dtype and either seconds or tflops"),
                Arguments.of("gemm", "m,n,k,dtype,flops\n" + ok, ":1: header: found column 'flops', expected one of "
                        + "m, n, k, dtype, seconds, tflops"),
                Arguments.of("gemm", "m,n,k,dtype\n" + ok, ":1: header: found neither seconds nor tflops, expected "
                        + "one of the two"),
                Arguments.of("gemm", "m,n,k,dtype,seconds,tflops\n", ":1: header: found both seconds and tflops, "
                        + "expected one of the two"),
                Arguments.of("gemm", h + ok + "512,512,0,bf16,50\n", ":5: k: found '0', expected a whole number "
                        + "greater than 0"),
                Arguments.of("gemm", h + ok + "512,512,512,bf16,-5\n", ":5: tflops: found '-5', expected a number "
                        + "greater than 0 (TFLOP/s)"),
                Arguments.of("gemm", h + ok + "512,512,512,fp16,50\n", ":5: dtype: found 'fp16', expected bf16 or fp8 "
                        + "(the GEMM precisions a profile holds)"),
                Arguments.of("gemm", h + ok + "256,512,256,bf16,12\n", ":5: tflops: found 256x512x256 bf16 at 12 "
                        + "TFLOP/s, expected one result per shape and dtype: 11.5 at "),
                Arguments.of("gemm", h + "256,512,256,bf16,11.5\n1024,256,256,bf16,22\n", ":2: dtype: found 2 bf16 "
                        + "points, expected at least 3 (the model has three fitted constants)"),
                Arguments.of("gemm", h + ok + "1,2\n", ":5: found 2 cells, expected 5 (m, n, k, dtype, tflops)"),
                Arguments.of("gemm", h + ok + "4096,4096,4096,bf16,1200\n", ":5: tflops: found 1200 TFLOP/s for "
                        + "4096x4096x4096 bf16, expected at most the chip's dense peak, 989 (peakTflops.bf16 of h100-sxm "
                        + "(bundled))"),
                Arguments.of("gemm", "# only a comment\n", ": header: found no header line, expected one naming m, n, "
                        + "k, dtype and either seconds or tflops"),
                Arguments.of("attention", a + "flash4,forward,64,false,512,300\n", ":2: impl: found 'flash4', "
                        + "expected standard, flash2, flash3 or cudnn"),
                Arguments.of("attention", a + "flash2,fwd,64,false,512,300\n", ":2: pass: found 'fwd', expected "
                        + "forward or backward"),
                Arguments.of("attention", a + "flash2,forward,64,yes,512,300\n", ":2: causal: found 'yes', expected "
                        + "true or false"),
                Arguments.of("attention", a + "flash2,forward,64,false,-512,300\n", ":2: seqLen: found '-512', "
                        + "expected a whole number greater than 0"),
                Arguments.of("attention", a + "flash2,forward,64,false,512,300\nflash2,forward,64,false,512,301\n",
                        ":3: tflops: found flash2 forward d64 non-causal seqLen 512 at 301 TFLOP/s, expected one "
                                + "result per kernel, pass, head size, mask and length: 300 at "),
                Arguments.of("attention", "impl,pass,headDim,causal,seqLen,batch,seconds\n", ":1: header: found "
                        + "seconds without heads, expected batch and heads beside seconds (they give the FLOPs)"));
    }

    @ParameterizedTest
    @MethodSource("rejections")
    void everyRejectionNamesFileLineAndFieldAndWritesNothing(String kind, String csv, String expected)
            throws IOException {
        Path file = dir.resolve(kind + ".csv");
        Files.writeString(file, csv);
        Path out = dir.resolve("out.yaml");
        Files.writeString(out, "untouched\n");
        ClusterSimTest.Result r = ClusterSimTest.cli("calibrate", "--base", "h100-sxm", "--" + kind, file.toString(),
                "-o", out.toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("error: " + file + expected), r.err());
        assertTrue(r.err().endsWith("nothing was written.\n"), r.err());
        assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), "no stack trace: " + r.err());
        assertEquals("", r.out(), "no report either");
        assertEquals("untouched\n", Files.readString(out));
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(2, files.count(), "no temporary file left");
        }
    }

    @Test
    void flagAndBaseRejections() throws IOException {
        Path out = dir.resolve("out.yaml");
        String[][] cases = {
            {"error: --base: found 'h900', which is neither a bundled profile (/org/clustersim/profiles/h900.yaml) "
                + "nor a file, expected a bundled profile name such as h100-sxm or a profile file",
                "--base", "h900", "--memory-bandwidth", "3"},
            {"error: --memory-bandwidth: found 3.5 TB/s, expected at most the HBM bandwidth, 3.35 "
                + "(memory.bandwidthTBps of h100-sxm (bundled))", "--base", "h100-sxm", "--memory-bandwidth", "3.5"},
            {"error: --gemm-best: found bf16=1000, expected a rate above 0 and at most the dense peak, 989", "--base",
                "h100-sxm", "--gemm", GEMM, "--gemm-best", "bf16=1000"},
            {"error: --gemm-best: found fp8=1500, expected a dtype with points in the --gemm files", "--base",
                "h100-sxm", "--gemm", GEMM, "--gemm-best", "fp8=1500"},
            {"error: --gemm-best: found 'bf16:794', expected DTYPE=TFLOPS", "--base", "h100-sxm", "--gemm", GEMM,
                "--gemm-best", "bf16:794"},
            {"error: --nccl-op: found 'allgatherv', expected one of all_reduce", "--base", "h100-sxm", "--nccl", NCCL,
                "--nccl-op", "allgatherv"},
            {"error: nothing to calibrate: expected --gemm, --attention, --memory-bandwidth or --nccl", "--base",
                "h100-sxm"},
        };
        for (String[] c : cases) {
            List<String> args = new ArrayList<>(List.of("calibrate"));
            args.addAll(List.of(c).subList(1, c.length));
            args.addAll(List.of("-o", out.toString()));
            ClusterSimTest.Result r = ClusterSimTest.cli(args.toArray(new String[0]));
            assertEquals(2, r.code(), r.err());
            assertTrue(r.err().startsWith(c[0]), r.err());
            assertFalse(Files.exists(out), "nothing written");
        }
        Path base = dir.resolve("nofp8.yaml");
        Files.writeString(base, "name: x\npeakTflops:\n  bf16: 989\nmemory: {bandwidthTBps: 3.35}\n");
        ClusterSimTest.Result r = ClusterSimTest.cli("calibrate", "--base", base.toString(), "--gemm", FP8, "-o",
                out.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().startsWith("error: " + base + ":2: peakTflops.fp8: found nothing, expected the chip's dense "
                + "fp8 peak in TFLOP/s (a number > 0)"), r.err());
        assertFalse(Files.exists(out));
    }

    @Test
    void theDocsCopiesOfTheFixturesAreTheSameFiles() throws IOException {
        try (Stream<Path> files = Files.list(FIXTURES)) {
            for (Path f : files.toList()) {
                assertArrayEquals(Files.readAllBytes(f), Files.readAllBytes(DOCS.resolve(f.getFileName())),
                        "docs/calibration/" + f.getFileName() + " differs from the test fixture");
            }
        }
    }
}
