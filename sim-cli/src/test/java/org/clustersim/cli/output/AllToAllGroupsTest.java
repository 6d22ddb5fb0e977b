package org.clustersim.cli.output;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.clustersim.cli.ClusterSim;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The MoE all-to-all groups in the run summary, text and JSON. */
class AllToAllGroupsTest {
    @TempDir
    Path dir;

    /** EP 32 folded over TP 2 x DP 16 (expert TP 1), two stages, Megatron's rank order (stage-major). */
    static final String EP32 = """
            name: ep32-tp2-dp16
            cluster:
              preset: dgx-h100
              nodes: 8
              fabric: rail-optimized
            model:
              name: small-moe
              layers: 4
              hidden: 1024
              heads: 16
              vocab: 32000
              ffnKind: swiglu
              experts: 64
              topK: 4
              expertFfn: 512
            parallelism:
              tp: 2
              pp: 2
              dp: 16
              ep: 32
              etp: 1
              zero: 1
              sequenceParallel: true
              order: tp-cp-dp-pp
            training:
              globalBatch: 32
              seqLen: 1024
            simulation:
              replicas: one
            """;

    @Test
    void anEp32Tp2Dp16LayoutRunsAndListsItsAllToAllGroups() throws IOException {
        Path scenario = dir.resolve("ep32.yaml");
        Files.writeString(scenario, EP32);
        Path summary = dir.resolve("s.json");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = ClusterSim.execute(new String[] {"run", scenario.toString(), "--no-trace", "--summary",
                summary.toString()}, new PrintWriter(out), new PrintWriter(err));
        assertEquals(0, code, err.toString());
        String text = out.toString();
        assertTrue(text.contains("layout     tp=2 pp=2 dp=16 ep=32 etp=1"), text);
        // 32 GPUs per stage, one EP group each: GPUs 0..31 (servers 0..3) and 32..63 (servers 4..7)
        assertTrue(text.contains("all-to-all 2 EP groups of 32 GPUs (1 per stage), 2 of them across servers (up to 4 "
                + "each)"), text);
        assertTrue(text.contains("stage 0: GPUs 0..31 on servers 0..3"), text);
        assertTrue(text.contains("stage 1: GPUs 32..63 on servers 4..7"), text);

        JsonNode a2a = new ObjectMapper().readTree(summary.toFile()).get("allToAll");
        assertEquals(32, a2a.get("size").asInt());
        assertEquals(2, a2a.get("count").asInt());
        assertEquals(2, a2a.get("spanningServers").asInt());
        assertEquals("0..31", a2a.get("groups").get(0).get("gpus").asText());
        assertEquals(4, a2a.get("groups").get(0).get("serverCount").asInt());
        assertEquals("32..63", a2a.get("groups").get(1).get("gpus").asText());
        assertEquals(1, a2a.get("groups").get(1).get("stage").asInt());
        JsonNode groups = new ObjectMapper().readTree(summary.toFile()).get("groups");
        assertEquals("edp", groups.get(6).get("kind").asText());
        assertEquals(1, groups.get(6).get("size").asInt(), "one copy of each expert per stage");
        assertTrue(new ObjectMapper().readTree(summary.toFile()).get("stepTimeNs").asLong() > 0);
    }

    @Test
    void denseLayoutsHaveNoAllToAllSection() throws IOException {
        Path summary = dir.resolve("d.json");
        int code = ClusterSim.execute(new String[] {"run", Path.of("..", "scenarios", "gpt3-1.3b-pp4-gpipe.yaml")
                .toString(), "--no-trace", "--summary", summary.toString()}, new PrintWriter(new StringWriter()),
                new PrintWriter(new StringWriter()));
        assertEquals(0, code);
        assertFalse(new ObjectMapper().readTree(summary.toFile()).has("allToAll"));
    }

    @Test
    void gpuListsAreWrittenAsRunsOfAConstantStep() {
        assertEquals("0..63", AllToAllGroups.compact(new TreeSet<>(java.util.stream.IntStream.range(0, 64).boxed()
                .toList())));
        assertEquals("0..126/2", AllToAllGroups.compact(new TreeSet<>(java.util.stream.IntStream.range(0, 64)
                .map(i -> 2 * i).boxed().toList())));
        assertEquals("3, 9", AllToAllGroups.compact(new TreeSet<>(java.util.List.of(3, 9))));
        assertEquals("0, 2..4, 10..30/10", AllToAllGroups.compact(new TreeSet<>(java.util.List.of(0, 2, 3, 4, 10, 20,
                30))));
    }
}
