package org.clustersim.study.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.clustersim.core.input.InputFileException;
import org.clustersim.strategies.cost.RecomputeModule;
import org.clustersim.strategies.training.ContextParallel;
import org.clustersim.strategies.training.Zero3Impl;
import org.clustersim.study.scenario.ScenarioReader;

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

    @TempDir
    Path dir;

    private static Scenario read(String text) {
        return new ScenarioReader().readText(Path.of("x.yaml"), text);
    }

    /**
     * The layout's fields as the reader finds them in its scenario (neutral options: the reader's
     * defaults; a neutral bucket is Megatron-core's rule, which depends on the layout).
     */
    private static void assertReadsAs(Layout l, Scenario s) {
        var mesh = s.parallelism().layout().mesh();
        assertEquals(List.of(l.tp(), l.pp(), l.cp(), l.dp(), l.ep(), l.etp() == 0 ? l.tp() : l.etp()),
                List.of(mesh.tp(), mesh.pp(), mesh.cp(), mesh.dp(), mesh.ep(), mesh.etp()), l.label());
        assertEquals(l.schedule(), s.schedule().id(), l.label());
        assertEquals(l.mb(), s.training().microBatch(), l.label());
        assertEquals(l.recompute(), s.training().recompute().name().toLowerCase(java.util.Locale.ROOT), l.label());
        Set<RecomputeModule> modules = EnumSet.noneOf(RecomputeModule.class);
        for (String m : l.recomputeModules().isEmpty() ? new String[0] : l.recomputeModules().split("\\+")) {
            modules.add(RecomputeModule.byId(m).orElseThrow());
        }
        assertEquals(modules, s.training().recomputeModules(), l.label());
        assertEquals(l.zero(), s.parallelism().layout().zero().stage(), l.label());
        if (l.zero() == 3) {
            assertEquals(l.zero3Impl().isEmpty() ? Zero3Impl.DEFAULT.id() : l.zero3Impl(),
                    s.parallelism().layout().zero().options().impl().id(), l.label());
        }
        assertEquals(l.cpVariant().equals("ring") ? ContextParallel.RING : ContextParallel.ALL_GATHER,
                s.parallelism().layout().cpKind(), l.label());
        assertEquals(l.tpOverlap(), s.parallelism().layout().comm().tpCommOverlap(), l.label());
        assertEquals(l.overlapParamGather(), s.parallelism().overlapParamGather(), l.label());
        if (l.bucketMB() > 0) {
            assertEquals(Math.round(l.bucketMB() * 1e6), s.parallelism().layout().comm().bucketBytes(), l.label());
        }
        assertEquals(l.offloadLayers(), s.training().cpuOffloadLayers(), l.label());
    }

    @Test
    void everyOptionOfALayoutReachesTheScenarioItWrites() {
        BaseScenario gpt = BaseScenario.of(null, "gpt3-1.3b", "dgx-h100", 1, 16, 2048);
        Layout overlap = new Layout(2, 1, 2, 1, 0, 1, 2, 1, "selective", "core_attn+mlp+layernorm", 1, "", "1f1b",
                "ring", true, true, 40, 0);
        String text = gpt.scenarioText("x", overlap, 24);
        assertTrue(text.contains("tpCommOverlap: true") && text.contains("gradBucketMB: 40"), text);
        assertReadsAs(overlap, read(text));
        Layout fsdp = new Layout(1, 1, 1, 1, 0, 1, 8, 1, "none", "", 3, "fsdp2", "1f1b", "", false, false, 0, 6);
        assertReadsAs(fsdp, read(gpt.scenarioText("x", fsdp, 24)));

        BaseScenario mixtral = BaseScenario.of(null, "mixtral-8x7b", "dgx-h100", 2, 64, 4096);
        assertEquals(new DesignSpace.Model(8, false, false, false), mixtral.model());
        Layout experts = new Layout(2, 1, 1, 4, 1, 1, 8, 1, "selective", "core_attn+moe_act", 1, "", "1f1b", "",
                false, false, 0, 0);
        assertReadsAs(experts, read(mixtral.scenarioText("x", experts, 32)));
        assertEquals(new DesignSpace.Model(256, true, true, false),
                BaseScenario.of(null, "deepseek-v3-like", "dgx-h100", 2, 64, 4096).model());
        assertEquals(DesignSpace.Model.DENSE, gpt.model());
    }

    @Test
    void neutralOptionsKeepTheBasesFieldsAndChoicesThatRuleThemOutRemoveThem() throws IOException {
        Path file = dir.resolve("base.yaml");
        Files.writeString(file, """
                parallelism:
                  cpVariant: ring
                  tpCommOverlap: true
                  gradBucketMB: 25
                  overlapParamGather: true
                  zero3Impl: fsdp2
                training:
                  recompute: selective
                  recomputeModules: [mlp]
                """);
        BaseScenario base = BaseScenario.of(file, "gpt3-1.3b", "dgx-h100", 1, 16, 2048);
        Layout neutral = new Layout(2, 1, 2, 1, 1, 2, 1, "selective", 1, "1f1b");
        Scenario kept = read(base.scenarioText("x", neutral, 24));
        assertEquals(ContextParallel.RING, kept.parallelism().layout().cpKind());
        assertTrue(kept.parallelism().layout().comm().tpCommOverlap());
        assertEquals(25_000_000, kept.parallelism().layout().comm().bucketBytes());
        assertTrue(kept.parallelism().overlapParamGather());
        assertEquals(Set.of(RecomputeModule.MLP), kept.training().recomputeModules());
        // ZeRO 3 and full recomputation: the base's param gather and modules would be errors
        Layout full = new Layout(2, 1, 1, 1, 1, 4, 1, "full", 3, "1f1b");
        Scenario s = read(base.scenarioText("x", full, 24));
        assertEquals(Zero3Impl.FSDP2, s.parallelism().layout().zero().options().impl(), "zero 3 keeps the base's");
        assertTrue(s.training().recomputeModules().isEmpty());
        assertTrue(!s.parallelism().overlapParamGather());
        // ZeRO 1 drops the base's ZeRO-3 framework
        assertTrue(!base.scenarioText("x", new Layout(2, 1, 1, 1, 1, 4, 1, "full", 1, "1f1b"), 24)
                .contains("zero3Impl"));
    }

    @Test
    void theBasesGatherWithTheOptimizerStepStaysOnlyWhereMegatronAllowsIt() throws IOException {
        // the Megatron-Bridge 70B and 405B bases say it; it once ruled out every layout but interleaved ZeRO 1/2
        Path file = dir.resolve("gather.yaml");
        Files.writeString(file, """
                parallelism:
                  overlapParamGather: true
                  overlapParamGatherWithOptimizerStep: true
                """);
        BaseScenario base = BaseScenario.of(file, "gpt3-1.3b", "dgx-h100", 1, 16, 2048);
        Scenario interleaved = read(base.scenarioText("x", new Layout(2, 2, 1, 1, 2, 2, 1, "none", 1, "interleaved"), 24));
        assertTrue(interleaved.parallelism().overlapParamGatherWithOptimizerStep());
        Scenario oneFOneB = read(base.scenarioText("x", new Layout(2, 2, 1, 1, 1, 2, 1, "none", 1, "1f1b"), 24));
        assertTrue(oneFOneB.parallelism().overlapParamGather());
        assertFalse(oneFOneB.parallelism().overlapParamGatherWithOptimizerStep());
        Scenario zero0 = read(base.scenarioText("x", new Layout(2, 2, 1, 1, 2, 2, 1, "none", 0, "interleaved"), 24));
        assertFalse(zero0.parallelism().overlapParamGatherWithOptimizerStep());
    }

    @Test
    void everyFormedLayoutOfASmallSpaceReadsBackOrIsRejectedWithAReason() {
        BaseScenario gpt = BaseScenario.of(null, "gpt3-1.3b", "dgx-h100", 1, 16, 2048);
        DesignSpace space = new DesignSpace(List.of("1f1b", "interleaved", "zb-v"), List.of(1, 2), List.of(1, 2),
                List.of(1, 2), List.of("all-gather", "ring"), List.of(1), List.of(0), List.of(2), List.of(2),
                List.of("none", "selective", "full"), List.of("", "core_attn+mlp+layernorm"), List.of(0, 1, 3),
                List.of("fsdp2", "deepspeed"), List.of(false, true), List.of(false, true), List.of(0.0, 40.0),
                List.of(0, 6), gpt.model());
        List<Layout> layouts = space.enumerate(gpt.gpus(), gpt.globalBatch(), gpt.layers()).layouts();
        TreeMap<String, Integer> rejected = new TreeMap<>();
        int read = 0;
        Set<String> seen = new java.util.TreeSet<>();
        for (Layout l : layouts) {
            Scenario s;
            try {
                s = read(gpt.scenarioText("x", l, gpt.layers()));
            } catch (InputFileException e) {
                assertFalse(e.errors().get(0).message().isBlank(), l.label());
                rejected.merge(e.errors().get(0).path(), 1, Integer::sum);
                continue;
            }
            assertReadsAs(l, s);
            read++;
            seen.add(l.cpVariant());
            seen.add(l.zero3Impl());
            seen.add(l.recomputeModules());
            seen.add(l.tpOverlap() ? "tp-overlap" : "");
            seen.add(l.overlapParamGather() ? "param-gather" : "");
            seen.add(l.bucketMB() > 0 ? "bucket" : "");
            seen.add(l.offloadLayers() > 0 ? "offload" : "");
        }
        assertTrue(read > layouts.size() / 2, read + " of " + layouts.size() + " read; rejected: " + rejected);
        assertEquals(new java.util.TreeSet<>(List.of("", "all-gather", "ring", "fsdp2", "deepspeed",
                "core_attn+mlp+layernorm", "tp-overlap", "param-gather", "bucket", "offload")), seen,
                "each option reads back in some layout");
    }
}
