package org.clustersim.cli.output;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import org.clustersim.study.scenario.ScenarioReader;
import org.junit.jupiter.api.Test;

class ParallelGroupsTest {
    static List<ParallelGroups.Group> groups(String scenario) throws IOException {
        return ParallelGroups.of(new ScenarioReader().read(Path.of("..", "scenarios", scenario)).trainingStep());
    }

    @Test
    void tensorParallelStaysInAServerAndDataParallelRidesOneRail() throws IOException {
        List<ParallelGroups.Group> g = groups("gpt3-175b-128xh100-tp8-pp8-dp2.yaml");
        assertEquals(List.of("tp", "cp", "pp", "dp", "ep"), g.stream().map(ParallelGroups.Group::kind).toList());
        assertEquals(1, g.get(0).servers());
        assertEquals(1, g.get(1).size());
        assertEquals(List.of("nvlink"), g.get(0).crosses());
        assertEquals(8, g.get(2).servers());
        // rail-optimised: GPU 0 of every server hangs off the same leaf, so no spine is crossed
        assertEquals(List.of("gpu-nic", "nic-switch"), g.get(2).crosses());
        assertEquals(List.of("node0.gpu0", "node8.gpu0"), g.get(3).example());
    }

    @Test
    void dataParallelGroupsOfTheSixteenThousandGpuRunCrossTheSpines() throws IOException {
        ParallelGroups.Group dp = groups("llama3-405b-16k-h100.yaml").get(3);
        assertEquals(128, dp.size());
        assertEquals(128, dp.servers());
        assertTrue(dp.crosses().contains("leaf-spine"), dp.crosses().toString());
    }

    @Test
    void theMeshOrderDecidesWhatAnExpertGroupSpans() throws IOException {
        // DeepSeek-V3's layout: data parallelism inside pipeline parallelism, so EP 64 fills 8 servers
        List<ParallelGroups.Group> g = groups("deepseek-v3-like-2048xh100-pp16-ep64.yaml");
        ParallelGroups.Group ep = g.get(4);
        assertEquals("ep", ep.kind());
        assertEquals(64, ep.size());
        assertEquals(8, ep.servers());
        assertEquals(16, g.get(2).servers(), "each pipeline stage on its own servers");
        // under the default order (DP outermost) each member of an expert group sits on its own server
        List<ParallelGroups.Group> mixtral = groups("mixtral-8x7b-64xh100-tp2-pp4-ep8.yaml");
        assertEquals(8, mixtral.get(4).servers());
    }
}
