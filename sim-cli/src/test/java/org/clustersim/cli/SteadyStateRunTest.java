package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code simulation.steps} and {@code parallelism.overlapParamGather} through {@code clustersim run}. */
class SteadyStateRunTest {
    @TempDir
    Path dir;

    private static final String SMALL = """
            cluster: {preset: dgx-h100, gpusPerNode: 4}
            model: {preset: gpt3-1.3b}
            parallelism: {pp: 4}
            schedule: {kind: 1f1b}
            training: {globalBatch: 8, seqLen: 2048}
            """;

    private JsonNode run(String name, String scenario) throws IOException {
        Path file = dir.resolve(name + ".yaml");
        Files.writeString(file, scenario);
        Path summary = dir.resolve(name + ".json");
        ClusterSimTest.Result r = ClusterSimTest.cli("run", file.toString(), "--no-trace", "--summary",
                summary.toString());
        assertEquals(0, r.code(), r.err());
        return new ObjectMapper().readTree(summary.toFile());
    }

    @Test
    void theSummaryReportsTheLastStepAndListsEveryStep() throws IOException {
        JsonNode one = run("one", SMALL);
        JsonNode three = run("three", SMALL + "simulation: {steps: 3}\n");
        assertFalse(one.has("steps"), "a single step's summary is unchanged");
        JsonNode steps = three.get("steps");
        assertEquals(3, steps.size());
        long previousEnd = 0;
        for (int n = 0; n < 3; n++) {
            JsonNode s = steps.get(n);
            assertEquals(n, s.get("step").asInt());
            assertEquals(previousEnd, s.get("startNs").asLong());
            assertEquals(s.get("endNs").asLong() - s.get("startNs").asLong(), s.get("durationNs").asLong());
            previousEnd = s.get("endNs").asLong();
        }
        // 1F1B cannot overlap its steps: the last step is one step long, with one step's bubble
        assertEquals(one.get("stepTimeNs").asLong(), three.get("stepTimeNs").asLong());
        assertEquals(steps.get(2).get("durationNs").asLong(), three.get("stepTimeNs").asLong());
        assertEquals(one.get("idleFraction").asDouble(), three.get("idleFraction").asDouble(), 1e-12);
        assertEquals(one.get("pipelineBubbleFraction").asDouble(), three.get("pipelineBubbleFraction").asDouble(),
                1e-12);
        assertEquals(one.get("mfu").asDouble(), three.get("mfu").asDouble(), 1e-12);
        assertEquals(one.get("flopsExecuted").asDouble(), three.get("flopsExecuted").asDouble(),
                1e-9 * one.get("flopsExecuted").asDouble(), "FLOPs of the reported step only");
        assertEquals(one.get("peakMemoryBytes").asLong(), three.get("peakMemoryBytes").asLong());
    }

    @Test
    void severalStepsGiveByteIdenticalOutputs() throws IOException {
        Path file = dir.resolve("s.yaml");
        Files.writeString(file, SMALL + "simulation: {steps: 2}\n");
        for (String run : new String[] {"a", "b"}) {
            assertEquals(0, ClusterSimTest.cli("run", file.toString(), "--trace", dir.resolve(run + ".t.json").toString(),
                    "--summary", dir.resolve(run + ".s.json").toString()).code());
        }
        assertArrayEquals(Files.readAllBytes(dir.resolve("a.t.json")), Files.readAllBytes(dir.resolve("b.t.json")));
        assertArrayEquals(Files.readAllBytes(dir.resolve("a.s.json")), Files.readAllBytes(dir.resolve("b.s.json")));
    }

    @Test
    void overlappedParamGatherShortensADistributedOptimizerStep() throws IOException {
        String dp = """
                cluster: {preset: dgx-h100, nodes: 1}
                model: {preset: gpt3-1.3b}
                parallelism: {dp: 8, zero: 1%s}
                training: {globalBatch: 16, seqLen: 2048}
                """;
        JsonNode after = run("after", dp.formatted(""));
        JsonNode ahead = run("ahead", dp.formatted(", overlapParamGather: true"));
        long exposedAfter = after.get("devices").get(0).get("exposedByKind").get("dp-comm").asLong();
        long exposedAhead = ahead.get("devices").get(0).get("exposedByKind").get("dp-comm").asLong();
        // the whole step gets shorter by exactly what stopped being exposed, less what the gathers
        // now running beside the forward take from its kernels (interference)
        long lostAfter = after.get("devices").get(0).get("interferenceNs").asLong();
        long lostAhead = ahead.get("devices").get(0).get("interferenceNs").asLong();
        assertTrue(lostAhead > lostAfter, "the gathers beside the forward slow it");
        assertEquals(after.get("stepTimeNs").asLong() - ahead.get("stepTimeNs").asLong(),
                exposedAfter - exposedAhead - (lostAhead - lostAfter), 50.0,
                "up to a nanosecond per stretched kernel, whose end is rounded up");
        assertTrue(exposedAhead < exposedAfter / 4, exposedAhead + " vs " + exposedAfter);
    }

    @Test
    void badValuesAreLocatedErrors() throws IOException {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, SMALL + "simulation: {steps: 0}\n");
        ClusterSimTest.Result r = ClusterSimTest.cli("run", file.toString(), "--no-trace");
        assertEquals(2, r.code());
        assertTrue(r.err().contains(file + ":6:21: simulation.steps: found 0, expected an integer from 1 to 1000"),
                r.err());
    }
}
