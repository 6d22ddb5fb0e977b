package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScheduleCommandsTest {
    @TempDir
    Path dir;

    @Test
    void scheduleDrawsEveryRankAndMeasuresTheBubble() {
        ClusterSimTest.Result r = ClusterSimTest.cli("schedule", "--kind", "1f1b", "-p", "4", "-m", "8");
        assertEquals(0, r.code(), r.err());
        String[] lines = r.out().split("\n");
        // 1F1B, p=4, m=8, F=Bi=W=1 (Bf=2): makespan (m+p-1)(F+Bf) = 33, half a unit per character
        String rank3 = java.util.Arrays.stream(lines).filter(l -> l.startsWith("rank 3 |")).findFirst().orElseThrow();
        String drawn = rank3.substring(rank3.indexOf('|') + 1, rank3.lastIndexOf('|'));
        assertEquals(66, drawn.length());
        assertTrue(drawn.startsWith("......F0B0bbF1B1bb"), drawn);
        assertEquals(18, drawn.chars().filter(c -> c == '.').count(), "3 units idle at the start, 6 at the end");
        assertTrue(rank3.contains("bubble 9"), rank3);
        assertTrue(r.out().contains("bubble (worst rank) 9 measured, 9 analytical (difference 0)"), r.out());
    }

    @Test
    void scheduleWritesATraceOnRequest() throws IOException {
        Path trace = dir.resolve("zbv.json");
        ClusterSimTest.Result r = ClusterSimTest.cli("schedule", "--kind", "zb-v", "-p", "4", "-m", "8", "--trace",
                trace.toString());
        assertEquals(0, r.code(), r.err());
        TraceChecks.Counts c = TraceChecks.check(trace);
        // 4 ranks x 8 microbatches x 2 chunks x (F, Bi, W)
        assertEquals(4 * 8 * 2 * 3 + 2 * c.flowStarts(), c.complete());
    }

    @Test
    void latencyMakesTheMeasuredBubbleExceedTheFormula() {
        ClusterSimTest.Result r = ClusterSimTest.cli("schedule", "--kind", "gpipe", "-p", "2", "-m", "1",
                "--latency", "0.5");
        assertEquals(0, r.code(), r.err());
        // one microbatch: two sends on the critical path add 1 unit to the (p-1)(F+Bf) = 3
        assertTrue(r.out().contains("bubble (worst rank) 4 measured, 3 analytical (difference 1)"), r.out());
    }

    @Test
    void invalidScheduleValuesAreBadInput() {
        ClusterSimTest.Result r = ClusterSimTest.cli("schedule", "--kind", "dualpipe", "-p", "3", "-m", "12");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("even pipeline size"), r.err());
        ClusterSimTest.Result k = ClusterSimTest.cli("schedule", "--kind", "zb-h3");
        assertEquals(2, k.code());
        assertTrue(k.err().contains("expected one of gpipe, 1f1b"), k.err());
        ClusterSimTest.Result f = ClusterSimTest.cli("bubbles", "--f", "-1");
        assertEquals(2, f.code());
        assertTrue(f.err().contains("--f must be a finite number from 0 to 1e9"), f.err());
        // times that overflow the nanosecond clock are refused, not simulated into an internal error
        ClusterSimTest.Result fb = ClusterSimTest.cli("bubbles", "--fb", "1e300");
        assertEquals(2, fb.code(), fb.err());
        assertTrue(fb.err().contains("--fb must be a finite number from 0 to 1e9, got 1.0E300"), fb.err());
        ClusterSimTest.Result big = ClusterSimTest.cli("schedule", "--kind", "1f1b", "-m", "100000", "--f", "1e9");
        assertEquals(2, big.code(), big.err());
        assertTrue(big.err().contains("beyond the simulation clock"), big.err());
    }

    @Test
    void bubblesComparesEveryValidScheduleAndWritesJson() throws IOException {
        Path json = dir.resolve("b.json");
        ClusterSimTest.Result r = ClusterSimTest.cli("bubbles", "-p", "4", "-m", "8", "--f", "1", "--bi", "1.2",
                "--w", "0.8", "--json", json.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode rows = new ObjectMapper().readTree(json.toFile());
        Map<String, JsonNode> byKind = new HashMap<>();
        for (JsonNode row : rows) {
            byKind.put(row.get("kind").asText(), row);
            for (String field : new String[] {"kind", "p", "m", "v", "f", "bi", "w", "measuredBubble",
                "analyticalBubble", "peakActivations"}) {
                assertTrue(row.has(field), field + " in " + row);
            }
        }
        assertEquals(8, byKind.size(), "all schedules are valid for p=4, m=8");
        // the reference's worked values for p=4, F=1, Bi=1.2, W=0.8
        assertEquals(9.0, byKind.get("1f1b").get("measuredBubble").asDouble(), 1e-9);
        assertEquals(4.5, byKind.get("interleaved").get("measuredBubble").asDouble(), 1e-9);
        assertEquals(4.2, byKind.get("zb-h1").get("measuredBubble").asDouble(), 1e-9);
        assertEquals(1.8, byKind.get("zb-h2").get("measuredSpanBubble").asDouble(), 1e-9);
        assertEquals(2.0, byKind.get("dualpipe").get("weightsPerRank").asDouble(), 1e-9);
        assertEquals(2.6, byKind.get("dualpipe").get("analyticalBubble").asDouble(), 1e-9);
    }

    @Test
    void bubblesMeasuresTheSteadyStateOfConsecutiveSteps() throws IOException {
        Path json = dir.resolve("steady.json");
        ClusterSimTest.Result r = ClusterSimTest.cli("bubbles", "-p", "4", "-m", "8", "--json", json.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("steady"), r.out());
        Map<String, JsonNode> byKind = new HashMap<>();
        for (JsonNode row : new ObjectMapper().readTree(json.toFile())) {
            byKind.put(row.get("kind").asText(), row);
        }
        // F = Bi = W = 1, p = 4, m = 8: ZB-H2 fills its cool-down with the next step's warm-up forwards,
        // (p-1)(F+Bi-2W) = 0 per step of m(F+Bi+W) = 24, while one step alone idles (p-1)F = 3
        assertEquals(0.0, byKind.get("zb-h2").get("measuredSteadyBubble").asDouble(), 1e-9);
        assertEquals(24.0, byKind.get("zb-h2").get("steadyStepTime").asDouble(), 1e-9);
        assertEquals(3.0, byKind.get("zb-h2").get("measuredBubble").asDouble(), 1e-9);
        // 1F1B keeps (p-1)(F+Bf) = 9 of a 33 step
        assertEquals(9.0, byKind.get("1f1b").get("measuredSteadyBubble").asDouble(), 1e-9);
        assertEquals(33.0, byKind.get("1f1b").get("steadyStepTime").asDouble(), 1e-9);
    }

    @Test
    void scheduleShowsEachRanksSteadyStateIdle() {
        ClusterSimTest.Result r = ClusterSimTest.cli("schedule", "--kind", "1f1b", "-p", "4", "-m", "8");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("own-span 9  steady 9  peak acts"), r.out());
        assertTrue(r.out().contains("steady state (3 steps back to back, the last measured): step time 33, idle "
                + "(worst rank) 9"), r.out());
    }

    @Test
    void bubblesListsTheSchedulesItSkips() {
        ClusterSimTest.Result r = ClusterSimTest.cli("bubbles", "-p", "4", "-m", "6");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("skipped dualpipe:"), r.out());
        assertTrue(r.out().contains("skipped interleaved:"), r.out());
        assertFalse(r.out().contains("skipped 1f1b"), r.out());
    }
}
