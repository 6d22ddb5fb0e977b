package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tpCommOverlap} on the bundled GPT-3 175B TP 8 layout, reduced to one layer per stage and
 * 8 microbatches per replica so that it runs in seconds: the steady-state step (the third of
 * three) must be shorter with it than without, and the tensor-parallel transfers must run under
 * compute. With a per-chunk efficiency on top of the chunk shapes (issue 30) the overlapped step
 * came out longer: 122.9 ms against 119.7 ms.
 */
class TpCommOverlapScenarioTest {
    private static final String SCENARIO = "gpt3-175b-128xh100-tp8-pp8-dp2";
    private static final String REDUCED = "model.layers=8;training.globalBatch=16;simulation.replicas=one";

    @TempDir
    Path dir;

    private JsonNode run(boolean overlap, int steps, String... flags) throws IOException {
        String name = "overlap-" + overlap + "-" + steps;
        Path file = ScenarioOverrides.write(SCENARIO, REDUCED + ";parallelism.tpCommOverlap=" + overlap
                + ";simulation.steps=" + steps, dir.resolve(name + ".yaml"));
        Path summary = dir.resolve(name + ".json");
        String[] args = new String[4 + flags.length];
        args[0] = "run";
        args[1] = file.toString();
        args[2] = "--summary=" + summary;
        System.arraycopy(flags, 0, args, 3, flags.length);
        args[args.length - 1] = flags.length == 0 ? "--no-trace" : "--trace-format=json";
        ClusterSimTest.Result r = ClusterSimTest.cli(args);
        assertEquals(0, r.code(), r.err());
        return new ObjectMapper().readTree(summary.toFile());
    }

    private static long tp(JsonNode summary, String which) {
        long sum = 0;
        for (JsonNode d : summary.get("devices")) {
            sum += d.get(which).path("tp-comm").asLong();
        }
        return sum;
    }

    @Test
    void overlappingTheTensorParallelCollectivesShortensTheSteadyStateStep() throws IOException {
        JsonNode off = run(false, 3);
        JsonNode on = run(true, 3);
        long a = off.get("stepTimeNs").asLong();
        long b = on.get("stepTimeNs").asLong();
        assertTrue(b < a, "with tpCommOverlap " + b + " ns, without " + a + " ns");
        // without it every TP collective sits between the blocks; with it most runs under the GEMMs
        assertTrue(tp(off, "overlappedByKind") < tp(off, "exposedByKind") / 10, "exposed without overlap");
        assertTrue(tp(on, "overlappedByKind") > 3 * tp(on, "exposedByKind"),
                "overlapped " + tp(on, "overlappedByKind") + " ns vs exposed " + tp(on, "exposedByKind") + " ns");
        assertTrue(tp(on, "exposedByKind") < tp(off, "exposedByKind") / 2);
    }

    @Test
    void theTraceShowsTheRingStepsUnderTheGemmChunks() throws IOException {
        Path trace = dir.resolve("trace.json");
        run(true, 1, "--trace=" + trace);
        JsonNode events = new ObjectMapper().readTree(trace.toFile()).get("traceEvents");
        // the first layer's QKV ring exchange on the first GPU: step k runs within chunk k's span
        Map<String, JsonNode> first = new HashMap<>();
        for (JsonNode e : events) {
            String name = e.path("name").asText();
            if ("X".equals(e.path("ph").asText()) && name.startsWith("F mb0 L0 attn qkv ")
                    && e.get("pid").asInt() == 1 && !first.containsKey(name)) {
                first.put(name, e);
            }
        }
        // the steps run back to back from the first (local) chunk on, each ending before the chunk it
        // feeds starts; the chunks run back to back too, so every step lies under a GEMM chunk
        double computeStart = first.get("F mb0 L0 attn qkv 1/8").get("ts").asDouble();
        for (int k = 1; k < 8; k++) {
            JsonNode step = first.get("F mb0 L0 attn qkv tp-ring " + k);
            JsonNode fed = first.get("F mb0 L0 attn qkv " + (k + 1) + "/8");
            JsonNode previous = first.get("F mb0 L0 attn qkv " + k + "/8");
            assertTrue(step != null && fed != null && previous != null, "step and chunks " + k + " in the trace");
            assertEquals("tp-comm", step.get("cat").asText());
            double start = step.get("ts").asDouble();
            double end = start + step.get("dur").asDouble();
            assertTrue(start >= computeStart && end <= fed.get("ts").asDouble(),
                    "ring step " + k + " [" + start + ", " + end + "] before chunk " + (k + 1) + " at " + fed.get("ts"));
            assertEquals(previous.get("ts").asDouble() + previous.get("dur").asDouble(), fed.get("ts").asDouble(),
                    2e-3, "chunk " + (k + 1) + " follows chunk " + k + " without a gap");
        }
    }
}
