package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterSimTest {
    static final Path SCENARIOS = Path.of("..", "scenarios");

    @TempDir
    Path dir;

    record Result(int code, String out, String err) {
    }

    static Result cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = ClusterSim.execute(args, new PrintWriter(out), new PrintWriter(err));
        return new Result(code, out.toString(), err.toString());
    }

    /** FP8 training reports MFU against the bf16 peak, as Megatron-core does, and against the FP8 peak beside it. */
    @Test
    void fp8RunsReportMfuAgainstTheBf16PeakWithTheFp8FigureAlongside() throws IOException {
        Path scenario = dir.resolve("fp8.yaml");
        Files.writeString(scenario, """
                cluster: {preset: dgx-h100, nodes: 1}
                model: {preset: llama3-8b, layers: 4}
                parallelism: {tp: 8}
                training: {globalBatch: 2, seqLen: 2048, precision: fp8, fp8Recipe: current}
                """);
        Path summary = dir.resolve("fp8.json");
        Result r = cli("run", scenario.toString(), "--no-trace", "--summary", summary.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode json = new ObjectMapper().readTree(summary.toFile());
        double mfu = json.get("mfu").asDouble();
        assertEquals(mfu * 989 / 1979, json.get("mfuFp8Peak").asDouble(), 1e-9 * mfu);
        assertEquals(json.get("tflopsPerGpu").asDouble() / 989, mfu, 1e-9);
        assertTrue(r.out().contains("of the bf16 peak (MFU"), r.out());
    }

    /**
     * NVFP4 on a DGX B200: MFU against the bf16 peak, with the FP4 figure beside it (in the JSON
     * summary and the text), the casts and Hadamard amax passes named in the trace's op splits.
     */
    @Test
    void nvfp4RunsReportMfuAgainstTheBf16PeakWithTheFp4FigureAndShowTheirCasts() throws IOException {
        Path scenario = dir.resolve("nvfp4.yaml");
        Files.writeString(scenario, """
                cluster: {preset: dgx-b200, nodes: 1}
                model: {preset: llama3-8b, layers: 4}
                parallelism: {tp: 8, sequenceParallel: true}
                training: {globalBatch: 2, seqLen: 2048, precision: nvfp4, bf16LayersAtEnd: 1}
                """);
        Path summary = dir.resolve("nvfp4.json");
        Path trace = dir.resolve("nvfp4-trace.json");
        Result r = cli("run", scenario.toString(), "--trace", trace.toString(), "--summary", summary.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode json = new ObjectMapper().readTree(summary.toFile());
        double mfu = json.get("mfu").asDouble();
        // b200: 2250 TFLOP/s bf16, 9000 fp4 dense
        assertEquals(mfu * 2250 / 9000, json.get("mfuFp4Peak").asDouble(), 1e-9 * mfu);
        assertEquals(0, json.get("mfuFp8Peak").asDouble(), 0);
        assertTrue(r.out().contains("of the bf16 peak (MFU") && r.out().contains("of the fp4 peak"), r.out());
        String t = Files.readString(trace);
        assertTrue(t.contains("\"nvfp4 cast\"") && t.contains("\"hadamard amax\""), "casts in the trace");
    }

    /** NVFP4 needs a profile with a gemm.nvfp4 surface: H100's has none, an error at the field's line. */
    @Test
    void nvfp4OnAProfileWithoutAnFp4SurfaceIsAnInputError() throws IOException {
        Path scenario = dir.resolve("nvfp4-h100.yaml");
        Files.writeString(scenario, """
                cluster: {preset: dgx-h100, nodes: 1}
                model: {preset: llama3-8b, layers: 4}
                parallelism: {tp: 8}
                training:
                  globalBatch: 2
                  precision: nvfp4
                """);
        Result r = cli("run", scenario.toString(), "--no-trace");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("nvfp4-h100.yaml:6") && r.err().contains("training.precision")
                && r.err().contains("gemm.nvfp4"), r.err());
    }

    @Test
    void runsTheBundledOneFOneBScenarioAndWritesAValidTrace() throws IOException {
        Path trace = dir.resolve("t.json");
        Path summary = dir.resolve("sub/s.json");
        Result r = cli("run", SCENARIOS.resolve("gpt3-175b-pp8-1f1b.yaml").toString(), "--trace", trace.toString(),
                "--summary", summary.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("step time"), r.out());
        assertTrue(r.out().contains(trace.toString()), "prints the trace path");
        TraceChecks.Counts c = TraceChecks.check(trace);
        // per stage and microbatch one task per layer (12) for F and for B, the embedding (first stage),
        // logits forward and backward (last stage), one Adam step per GPU, every send drawn on both ends, and
        // the tied-embedding gradient all-reduce between the first and the last stage (on both GPUs)
        assertEquals(8 * 64 * 12 * 2 + 64 + 2 * 64 + 8 + 2 * (7 * 64 * 2) + 2, c.complete());
        assertEquals(7 * 64 * 2, c.flowStarts());
        assertTrue(c.counterSamples() > 0, "link throughput counters");
        JsonNode s = new ObjectMapper().readTree(summary.toFile());
        assertEquals(8, s.get("devices").size());
        JsonNode pp = s.get("groups").get(2);
        assertEquals("pp", pp.get("kind").asText());
        assertEquals(1, pp.get("servers").asInt());
        assertEquals("nvlink", pp.get("crosses").get(0).asText());
        long step = s.get("stepTimeNs").asLong();
        for (JsonNode d : s.get("devices")) {
            assertEquals(step, d.get("computeBusyNs").asLong() + d.get("computeIdleNs").asLong());
            assertEquals(d.get("computeIdleNs").asLong(), d.get("pipelineBubbleNs").asLong()
                    + d.get("exposedCommNs").asLong() + d.get("otherWaitNs").asLong(), d.toString());
        }
        assertTrue(s.get("pipelineBubbleFraction").asDouble() > 0 && s.get("pipelineBubbleFraction").asDouble() < 0.5);
        assertEquals(s.get("idleFraction").asDouble(), s.get("pipelineBubbleFraction").asDouble()
                + s.get("exposedCommFraction").asDouble() + s.get("otherWaitFraction").asDouble(), 1e-9);
    }

    @Test
    void gpipeAndOneFOneBHaveTheSameStepWithFreeCommunicationOfEqualStages() throws IOException {
        // The bundled scenarios differ only in the schedule; their measured step times must be
        // close (same bubble formula), yet each comes from its own simulated timeline.
        JsonNode a = summary("gpt3-175b-pp8-1f1b.yaml");
        JsonNode b = summary("gpt3-175b-pp8-gpipe.yaml");
        double ratio = a.get("stepTimeNs").asDouble() / b.get("stepTimeNs").asDouble();
        assertTrue(Math.abs(ratio - 1) < 0.01, "ratio " + ratio);
    }

    private JsonNode summary(String scenario) throws IOException {
        Path s = dir.resolve(scenario + ".summary.json");
        Result r = cli("run", SCENARIOS.resolve(scenario).toString(), "--trace", dir.resolve(scenario + ".trace.json")
                .toString(), "--summary", s.toString());
        assertEquals(0, r.code(), r.err());
        return new ObjectMapper().readTree(s.toFile());
    }

    @Test
    void sameScenarioGivesByteIdenticalOutputs() throws IOException {
        Path scenario = SCENARIOS.resolve("gpt3-175b-pp8-gpipe.yaml");
        for (String run : new String[] {"a", "b"}) {
            assertEquals(0, cli("run", scenario.toString(), "--trace", dir.resolve(run + ".trace.json").toString(),
                    "--summary", dir.resolve(run + ".summary.json").toString()).code());
        }
        assertArrayEquals(Files.readAllBytes(dir.resolve("a.trace.json")),
                Files.readAllBytes(dir.resolve("b.trace.json")));
        assertArrayEquals(Files.readAllBytes(dir.resolve("a.summary.json")),
                Files.readAllBytes(dir.resolve("b.summary.json")));
    }

    @Test
    void badScenarioExitsTwoAndWritesNothing() throws IOException {
        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, "model:\n  preset: gpt3-175b\nparallelism:\n  pp: 5\ntraining:\n  globalBatch: 8\n");
        Path trace = dir.resolve("out/trace.json");
        Result r = cli("run", bad.toString(), "--trace", trace.toString(), "--summary", dir.resolve("s.json")
                .toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains(bad + ":4:7: parallelism.pp"), r.err());
        assertFalse(Files.exists(dir.resolve("out")), "no output directory or file");
        assertFalse(Files.exists(dir.resolve("s.json")));
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(1, files.count(), "only the scenario file itself");
        }
    }

    @Test
    void anAllToAllThatCannotRunIsBadInputAtItsField() throws IOException {
        String base = Files.readString(SCENARIOS.resolve("deepseek-v3-like-2048xh100-pp16-ep64.yaml"))
                .replace("  preset: deepseek-v3-like\n", "  preset: deepseek-v3-like\n  nodeLimit: 0\n")
                .replace("  order: tp-cp-dp-pp\n", "  order: tp-cp-dp-pp\n  allToAll: node-limited\n");
        Path bad = dir.resolve("a2a.yaml");
        Files.writeString(bad, base);
        int line = java.util.Arrays.asList(base.split("\n")).indexOf("  allToAll: node-limited") + 1;
        Result r = cli("run", bad.toString(), "--no-trace");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains(bad + ":" + line + ":13: parallelism.allToAll: found node-limited, but "
                + "deepseek-v3-like routes tokens without a node limit"), r.err());
    }

    @Test
    void aFaultThatCutsAGroupApartIsBadInputNamingWhatCannotReachWhat() throws IOException {
        String base = Files.readString(SCENARIOS.resolve("gpt3-175b-pp8-1f1b.yaml")) + """
                faults:
                  - link: node0.gpu3<->node0.nvswitch
                    at: 1ms
                """;
        Path cut = dir.resolve("cut.yaml");
        Files.writeString(cut, base);
        Path trace = dir.resolve("cut.json");
        Result r = cli("run", cut.toString(), "--trace", trace.toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("the faults cut the cluster apart") && r.err().contains("node0.gpu3"), r.err());
        assertFalse(Files.exists(trace));
    }

    @Test
    void aLayoutThatDoesNotFitStopsWithTheBreakdownUnlessAllowed() throws IOException {
        String base = Files.readString(SCENARIOS.resolve("gpt3-175b-pp8-1f1b.yaml"))
                .replace("  allowOom: true", "  allowOom: false");
        Path oom = dir.resolve("oom.yaml");
        Files.writeString(oom, base);
        Path trace = dir.resolve("oom.json");
        Result r = cli("run", oom.toString(), "--trace", trace.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("runs out of memory on node0.gpu0: peak 485.9 GB against 80 GB"), r.err());
        assertTrue(r.err().contains("weights 44.7, gradients 89.5"), "fp32 main gradients, twice the bf16 weights: "
                + r.err());
        assertTrue(r.err().contains("workspace 1.1"), r.err());
        assertTrue(r.err().contains("optimizer state 268.5"), r.err());
        assertFalse(Files.exists(trace));
        Result allowed = cli("run", oom.toString(), "--trace", trace.toString(), "--allow-oom");
        assertEquals(0, allowed.code(), allowed.err());
        assertTrue(allowed.out().contains("does not fit in HBM"), allowed.out());
        assertTrue(Files.readString(trace).contains("\"name\":\"memory node0.gpu0\""), "memory counter track");
    }

    @Test
    void noTraceWritesOnlyTheSummary() throws IOException {
        Path summary = dir.resolve("s.json");
        Path scenario = dir.resolve("small.yaml");
        Files.writeString(scenario, Files.readString(SCENARIOS.resolve("gpt3-1.3b-pp4-gpipe.yaml"))
                .replace("traces/examples/gpt3-1.3b-pp4-gpipe.json", dir.resolve("never.json").toString()));
        Result r = cli("run", scenario.toString(), "--no-trace", "--summary", summary.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("trace      not written (--no-trace)"), r.out());
        assertTrue(new ObjectMapper().readTree(summary.toFile()).get("stepTimeNs").asLong() > 0);
        assertFalse(Files.exists(dir.resolve("never.json")));
        Result both = cli("run", scenario.toString(), "--no-trace", "--trace", dir.resolve("t.json").toString());
        assertEquals(2, both.code());
        assertTrue(both.err().contains("--trace FILE or --no-trace, not both"), both.err());
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"gpt3-175b-pp8-gpipe.yaml", "gpt3-175b-pp8-1f1b.yaml",
            "gpt3-175b-pp8-interleaved.yaml", "gpt3-175b-pp8-zb-h1.yaml", "gpt3-175b-pp8-dualpipe.yaml"})
    void everyBundledScheduleScenarioRuns(String scenario) throws IOException {
        Path summary = dir.resolve("s.json");
        Result r = cli("run", SCENARIOS.resolve(scenario).toString(), "--no-trace", "--summary", summary.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode s = new ObjectMapper().readTree(summary.toFile());
        assertTrue(s.get("mfu").asDouble() > 0.3 && s.get("mfu").asDouble() < 1, s.get("mfu").toString());
    }

    @Test
    void unknownFlagIsAUsageErrorWithExitTwo() {
        Result r = cli("run", "x.yaml", "--trase", "t.json");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("--trase"), r.err());
    }

    @Test
    void validateChecksWithoutWriting() throws IOException {
        Result ok = cli("validate", SCENARIOS.resolve("gpt3-175b-pp8-1f1b.yaml").toString());
        assertEquals(0, ok.code(), ok.err());
        assertTrue(ok.out().contains("ok"), ok.out());
        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, "training:\n  globalBatch: 8\n  seqlen: 4\n");
        Result r = cli("validate", bad.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("training.seqlen: unknown field"), r.err());
        assertTrue(r.err().contains("did you mean 'seqLen'?"), r.err());
        // fault targets are checked against the built cluster
        String base = Files.readString(SCENARIOS.resolve("gpt3-175b-pp8-1f1b.yaml"));
        Path typo = dir.resolve("typo.yaml");
        Files.writeString(typo, base + "faults:\n  - switch: node0.nvswich\n");
        Result t = cli("validate", typo.toString());
        assertEquals(2, t.code(), t.out());
        assertTrue(t.err().contains("faults[0].switch: no switch named 'node0.nvswich'")
                && t.err().contains("did you mean 'node0.nvswitch'?"), t.err());
        Path fixed = dir.resolve("fixed.yaml");
        Files.writeString(fixed, base + "faults:\n  - switch: node0.nvswitch\n    at: 1ms\n    for: 1ms\n");
        Result f = cli("validate", fixed.toString());
        assertEquals(0, f.code(), f.err());
        assertTrue(f.out().contains("1 fault touching 16 links and 0 GPUs"), f.out());
    }

    @Test
    void unwritableTraceIsBadInputNotACrash() throws IOException {
        Path blocker = dir.resolve("file");
        Files.writeString(blocker, "x");
        Result r = cli("run", SCENARIOS.resolve("gpt3-175b-pp8-1f1b.yaml").toString(), "--trace",
                blocker.resolve("t.json").toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("--trace " + blocker.resolve("t.json") + ": " + blocker
                + " is a file, not a directory"), r.err());
    }

    @Test
    void versionAndHelp() {
        Result v = cli("--version");
        assertEquals(0, v.code());
        assertTrue(v.out().startsWith("clustersim "), v.out());
        Result h = cli("--help");
        assertEquals(0, h.code());
        assertTrue(h.out().contains("run") && h.out().contains("validate"), h.out());
    }
}
