package org.clustersim.study.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import org.clustersim.study.scenario.Scenario;
import org.clustersim.core.input.InputException;

/** How a plan writes a layout into a scenario. */
class BaseScenarioTest {
    @Test
    void stagesThatDoNotDivideTheLayersGetLighterEnds() {
        // Llama 3 405B's published split (Llama 3 herd paper, section 3.3.2): 126 layers on 16 stages
        int[] llama = BaseScenario.split(126, 16);
        assertEquals(7, llama[0]);
        assertEquals(7, llama[15]);
        for (int s = 1; s < 15; s++) {
            assertEquals(8, llama[s]);
        }
        assertArrayEquals(new int[] {3, 4, 4}, BaseScenario.split(11, 3));
        assertNull(BaseScenario.split(80, 8), "an even split is left to the reader");
    }

    @Test
    void nvl72RacksBeyondOneSitOnTheRackRailsAndOneRackOnItsOwnSwitch() {
        BaseScenario racks = BaseScenario.of(null, "llama3-70b", "gb200-nvl72", 4, 288, 8192);
        String text = racks.scenarioText("x", new Layout(8, 1, 1, 1, 1, 36, 1, "selective", 1, "1f1b"), 80);
        assertTrue(text.contains("fabric: rail-optimized"), text);
        Scenario s = new org.clustersim.study.scenario.ScenarioReader().readText(java.nio.file.Path.of("x.yaml"), text);
        assertTrue(s.cluster() instanceof org.clustersim.topology.RackPodSpec, s.cluster().toString());
        assertEquals(288, s.cluster().gpus());
        BaseScenario one = BaseScenario.of(null, "llama3-70b", "gb200-nvl72", 1, 72, 8192);
        assertTrue(!one.scenarioText("x", new Layout(8, 1, 1, 1, 1, 9, 1, "selective", 1, "1f1b"), 80)
                .contains("fabric:"), "one rack needs no scale-out fabric");
    }

    @Test
    void aSuperPodPresetBecomesItsServersOnRailsAndTheScenarioReadsBack() {
        BaseScenario base = BaseScenario.of(null, "llama3-405b", "superpod-h100-64su", 0, 2048, 8192);
        assertEquals(16_384, base.gpus());
        String text = base.scenarioText("x", new Layout(8, 16, 1, 1, 1, 128, 1, "selective", 1, "1f1b"), 126);
        assertTrue(text.contains("layersPerStage"), text);
        Scenario s = new org.clustersim.study.scenario.ScenarioReader().readText(java.nio.file.Path.of("x.yaml"), text);
        assertEquals(16_384, s.cluster().gpus());
        assertEquals(126, s.model().layers());
        assertEquals(16, s.parallelism().layout().mesh().pp());
        assertTrue(s.parallelism().layout().sequenceParallel());
        InputException e = org.junit.jupiter.api.Assertions.assertThrows(InputException.class,
                () -> BaseScenario.of(null, "llama3-70b", "tpu-v5p-8x8x8", 0, 8, 8));
        assertTrue(e.getMessage().contains("plan takes dgx-h100") && e.getMessage().contains("superpod-h100-64su"), e.getMessage());
    }
}
