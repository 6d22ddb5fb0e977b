package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;
import org.clustersim.topology.SwitchedClusterSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34, item 8: a scenario of 1,000,000 GPUs (125,000 DGX H100 servers) is refused with the
 * cluster's estimate and what to reduce by every command that would build its graph, before
 * building it ({@link WorkEstimate#cluster}); they used to build it for minutes without a word.
 */
class HugeClusterTest {
    static final String MILLION_GPUS = """
            name: llama3-405b-1m-h100
            cluster:
              preset: dgx-h100
              nodes: 125000
            model:
              preset: llama3-405b
            parallelism:
              tp: 8
              pp: 8
              dp: 15625
              zero: 1
              sequenceParallel: true
              layersPerStage: [15, 16, 16, 16, 16, 16, 16, 15]
            schedule:
              kind: 1f1b
            training:
              globalBatch: 125000
              microBatch: 1
              seqLen: 8192
              precision: bf16
            simulation:
              allowOom: true
            """;

    @TempDir
    Path dir;

    @Test
    void everyCommandRefusesTheMillionGpuClusterBeforeBuildingIt() throws IOException {
        // the graph's estimate (16 GB) is over what sim-cli's test JVM may use (-Xmx1g in its pom)
        assumeTrue(!WorkEstimate.cluster("x", SwitchedClusterSpec.dgxH100(125_000)).fits(),
                "this JVM's heap could hold a million GPUs' graph");
        Path all = dir.resolve("huge.yaml");
        Files.writeString(all, MILLION_GPUS);
        Path one = dir.resolve("huge-one.yaml");
        Files.writeString(one, MILLION_GPUS + "  replicas: one\n");
        Path traces = dir.resolve("traces");
        List<String[]> commands = List.of(new String[] {"validate", all.toString()},
                new String[] {"run", all.toString(), "--trace", traces.resolve("t.json").toString()},
                new String[] {"run", one.toString(), "--no-trace"},
                new String[] {"topology", all.toString()},
                new String[] {"topology", one.toString(), "--links"},
                new String[] {"collective", "--cluster", all.toString()},
                new String[] {"whatif", one.toString(), "--sweep=links"},
                new String[] {"report", one.toString(), "-o", dir.resolve("r.html").toString()});
        for (String[] args : commands) {
            HardeningTest.Result r = HardeningTest.cli(args).badInput();
            String what = String.join(" ", args);
            assertEquals(1, r.err().lines().count(), what + ": " + r.err());
            assertTrue(r.err().contains("(a cluster of 1,000,000 GPUs on 125,000 servers) needs more heap than the "
                    + "JVM may use"), what + ": " + r.err());
            assertTrue(r.err().contains("estimated 16.0 GB of heap") && r.err().contains("Try fewer servers "
                    + "(cluster.nodes"), what + ": " + r.err());
        }
        HardeningTest.Result v = HardeningTest.cli("validate", all.toString());
        assertTrue(v.out().startsWith("work: estimated 16.0 GB of heap for the cluster's graph"), v.out());
        assertEquals(List.of(one, all), files());
    }

    /**
     * The cluster's estimate counts what the whole step's counts for the graph: a cluster it
     * admits may still be refused once built, never the other way round.
     */
    @Test
    void theClusterEstimateIsPartOfTheStepEstimate() {
        for (String name : List.of("gpt3-175b-128xh100-tp8-pp8-dp2.yaml", "llama3-70b-tpu-v5p-512-fsdp64-tp8.yaml")) {
            Scenario s = new ScenarioReader().read(Path.of("..", "scenarios", name));
            long graph = WorkEstimate.cluster(s.name(), s.cluster()).heapBytes();
            long step = WorkEstimate.of(s, false).heapBytes();
            assertTrue(graph > 0 && graph < step, name + ": graph " + graph + ", step " + step);
        }
    }

    private List<Path> files() throws IOException {
        try (var s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).sorted().toList();
        }
    }
}
