package org.clustersim.study.scenario;

import org.clustersim.core.input.InputError;
import org.clustersim.core.input.InputFileException;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.strategies.training.AllToAllAlgorithm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScenarioReaderTest {
    @TempDir
    Path dir;

    private static final String VALID = """
            name: small
            cluster:
              preset: dgx-h100
              nodes: 1
            model:
              preset: gpt3-175b
            parallelism:
              pp: 8
            schedule:
              kind: gpipe
            training:
              globalBatch: 16
              microBatch: 2
              seqLen: 1024
            """;

    private Path write(String name, String content) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, content);
        return p;
    }

    private List<InputError> errors(String content) throws IOException {
        Path p = write("s.yaml", content);
        return assertThrows(InputFileException.class, () -> new ScenarioReader().read(p)).errors();
    }

    private static InputError only(List<InputError> errors) {
        assertEquals(1, errors.size(), () -> "expected one error, got " + errors);
        return errors.get(0);
    }

    @Test
    void readsAValidScenario() throws IOException {
        Scenario s = new ScenarioReader().read(write("s.yaml", VALID));
        assertEquals("small", s.name());
        assertEquals(8, s.parallelism().layout().mesh().pp());
        assertEquals(ScheduleKind.GPIPE, s.schedule());
        assertEquals(8, s.microbatches(), "16 sequences in microbatches of 2");
        assertEquals(96, s.model().layers());
        assertEquals(8, s.cluster().gpus());
    }

    @Test
    void jsonWorksTooAndOverridesPresetFields() throws IOException {
        Path p = write("s.json", """
                {"cluster": {"preset": "dgx-a100", "gpusPerNode": 4, "nvlinkBandwidthGBps": 100},
                 "model": {"preset": "gpt3-13b", "layers": 8},
                 "parallelism": {"pp": 4},
                 "training": {"globalBatch": 4}}
                """);
        Scenario s = new ScenarioReader().read(p);
        assertEquals("s", s.name(), "defaults to the file stem");
        assertEquals(8, s.model().layers());
        assertEquals(5120, s.model().hidden());
        assertEquals(100e9, ((org.clustersim.topology.SwitchedClusterSpec) s.cluster()).nvlinkBytesPerS());
        assertEquals(ScheduleKind.ONE_F_ONE_B, s.schedule(), "default schedule");
    }

    @Test
    void stepsAndParamGatherOverlapAreRead() throws IOException {
        Scenario plain = new ScenarioReader().read(write("s.yaml", VALID));
        assertEquals(1, plain.steps());
        assertEquals(false, plain.parallelism().overlapParamGather());
        Scenario s = new ScenarioReader().read(write("t.yaml", VALID.replace("  pp: 8", "  pp: 8\n  zero: 2\n"
                + "  overlapParamGather: true") + "simulation:\n  steps: 4\n"));
        assertEquals(4, s.steps());
        assertTrue(s.parallelism().overlapParamGather());
        assertTrue(s.stepSequence().overlapParamGather());
        assertEquals(4, s.stepSequence().steps());
    }

    private static final String DSV3 = """
            cluster:
              preset: dgx-h100
              nodes: 2
            model:
              preset: deepseek-v3-like
              layers: 8
            parallelism:
              pp: 2
              dp: 8
              ep: 8
              zero: 1
              order: tp-cp-dp-pp
            schedule:
              kind: interleaved
              v: 2
            training:
              globalBatch: 32
              seqLen: 1024
            """;

    @Test
    void readsRecomputeModulesMomentDtypeAndTheAllToAllOverlap() throws IOException {
        Scenario s = new ScenarioReader().read(write("m.yaml", DSV3.replace("  order: tp-cp-dp-pp",
                "  order: tp-cp-dp-pp\n  overlapMoeExpertParallelComm: true") + "  recompute: selective\n"
                + "  recomputeModules: [mla_up_proj, mlp]\n  adamMomentDtype: bf16\n"));
        assertEquals(java.util.Set.of(org.clustersim.strategies.cost.RecomputeModule.MLA_UP_PROJ,
                org.clustersim.strategies.cost.RecomputeModule.MLP), s.training().recomputeModules());
        assertEquals(2, s.training().adamMomentBytes());
        assertEquals(8, s.kernelCosts().optimizerStateBytes());
        assertTrue(s.pipelineSchedule() instanceof org.clustersim.strategies.pipeline.CombinedOneFOneB);
        Scenario plain = new ScenarioReader().read(write("p.yaml", DSV3));
        assertEquals(4, plain.training().adamMomentBytes());
        assertTrue(plain.training().recomputeModules().isEmpty());
        assertTrue(plain.pipelineSchedule() instanceof org.clustersim.strategies.pipeline.InterleavedSchedule);
    }

    @Test
    void badRecomputeModulesAreLocated() throws IOException {
        InputError unknown = only(errors(DSV3 + "  recompute: selective\n  recomputeModules: [mlp, attn]\n"));
        assertEquals("training.recomputeModules[1]", unknown.path());
        assertEquals(20, unknown.location().line());
        assertTrue(unknown.message().startsWith("found the text \"attn\"; expected one of core_attn, mla_up_proj"),
                unknown.message());
        InputError twice = only(errors(DSV3 + "  recompute: selective\n  recomputeModules: [mlp, mlp]\n"));
        assertEquals("training.recomputeModules[1]", twice.path());
        InputError moe = only(errors(DSV3 + "  recompute: selective\n  recomputeModules: [moe]\n"));
        assertTrue(moe.message().startsWith("not supported yet: recomputing 'moe'"), moe.message());
        InputError full = only(errors(DSV3 + "  recompute: full\n  recomputeModules: [mlp]\n"));
        assertEquals("training.recomputeModules", full.path());
        assertTrue(full.message().contains("expected recompute: selective"), full.message());
        InputError mla = only(errors(VALID + "  recompute: selective\n  recomputeModules: [mla_up_proj]\n"));
        assertTrue(mla.message().contains("has no latent attention"), mla.message());
        InputError dtype = only(errors(DSV3 + "  adamMomentDtype: fp16\n"));
        assertEquals("training.adamMomentDtype", dtype.path());
    }

    @Test
    void theAllToAllOverlapNeedsExpertParallelismAndACombinableSchedule() throws IOException {
        InputError noEp = only(errors(VALID.replace("  pp: 8", "  pp: 8\n  overlapMoeExpertParallelComm: true")));
        assertEquals("parallelism.overlapMoeExpertParallelComm", noEp.path());
        assertEquals(9, noEp.location().line());
        assertTrue(noEp.message().startsWith("found true with ep: 1"), noEp.message());
        InputError oneF = only(errors(DSV3.replace("  order: tp-cp-dp-pp", "  order: tp-cp-dp-pp\n"
                + "  overlapMoeExpertParallelComm: true").replace("  kind: interleaved\n  v: 2", "  kind: 1f1b")
                .replace("  layers: 8", "  layers: 8").replace("  pp: 2", "  pp: 2")));
        assertTrue(oneF.message().contains("expected schedule.kind: interleaved"), oneF.message());
        InputError full = only(errors(DSV3.replace("  order: tp-cp-dp-pp", "  order: tp-cp-dp-pp\n"
                + "  overlapMoeExpertParallelComm: true") + "  recompute: full\n"));
        assertTrue(full.message().contains("disables full recomputation"), full.message());
    }

    @Test
    void readsTheAllToAllAlgorithm() throws IOException {
        Scenario auto = new ScenarioReader().read(write("a.yaml", MOE));
        assertEquals(AllToAllAlgorithm.AUTO, auto.parallelism().layout().comm().allToAll());
        assertEquals(AllToAllAlgorithm.AUTO, auto.trainingStep().allToAll());
        for (AllToAllAlgorithm a : List.of(AllToAllAlgorithm.PXN, AllToAllAlgorithm.DIRECT)) {
            Scenario s = new ScenarioReader().read(write("b.yaml", MOE.replace("  ep: 8", "  ep: 8\n  allToAll: "
                    + a.id())));
            assertEquals(a, s.trainingStep().allToAll());
        }
        Scenario limited = new ScenarioReader().read(write("c.yaml", MOE.replace("preset: mixtral-8x7b",
                "preset: mixtral-8x7b\n  nodeLimit: 2").replace("  ep: 8", "  ep: 8\n  allToAll: node-limited")));
        assertEquals(AllToAllAlgorithm.NODE_LIMITED, limited.trainingStep().allToAll());
        // inside one server only direct (or auto) can run
        Scenario inServer = new ScenarioReader().read(write("d.yaml", DSV3.replace("  order: tp-cp-dp-pp",
                "  order: tp-cp-dp-pp\n  allToAll: direct")));
        assertEquals(AllToAllAlgorithm.DIRECT, inServer.parallelism().layout().comm().allToAll());
    }

    @Test
    void anAllToAllAlgorithmThatCannotRunIsLocated() throws IOException {
        InputError noLimit = only(errors(MOE.replace("  ep: 8", "  ep: 8\n  allToAll: node-limited")));
        assertEquals("parallelism.allToAll", noLimit.path());
        assertEquals(11, noLimit.location().line());
        assertEquals(13, noLimit.location().column());
        assertTrue(noLimit.message().startsWith("found node-limited, but mixtral-8x7b routes tokens without a node "
                + "limit (model.nodeLimit is 0)"), noLimit.message());
        InputError oneServer = only(errors(DSV3.replace("  order: tp-cp-dp-pp", "  order: tp-cp-dp-pp\n"
                + "  allToAll: pxn")));
        assertEquals("parallelism.allToAll", oneServer.path());
        assertTrue(oneServer.message().startsWith("found pxn, but the EP group of GPU 0 (8 GPUs, stage 0) sits in one "
                + "server"), oneServer.message());
        InputError dense = only(errors(VALID.replace("  pp: 8", "  pp: 8\n  allToAll: direct")));
        assertTrue(dense.message().startsWith("found direct, but gpt3-175b has no experts"), dense.message());
        InputError unknown = only(errors(MOE.replace("  ep: 8", "  ep: 8\n  allToAll: ring")));
        assertEquals("parallelism.allToAll", unknown.path());
        assertTrue(unknown.message().contains("expected one of auto, direct, node-limited, pxn"), unknown.message());
    }

    @Test
    void stepsMustBeAPositiveInteger() throws IOException {
        InputError e = only(errors(VALID + "simulation:\n  steps: 0\n"));
        assertEquals("simulation.steps", e.path());
        assertEquals(16, e.location().line());
        assertEquals(10, e.location().column());
        assertEquals("found 0, expected an integer from 1 to 1000", e.message());
        InputError text = only(errors(VALID + "simulation:\n  steps: many\n"));
        assertTrue(text.message().contains("found the text \"many\", expected an integer"), text.message());
    }

    @Test
    void paramGatherOverlapNeedsTheDistributedOptimizerAndOverlappedGradients() throws IOException {
        InputError zero = only(errors(VALID.replace("  pp: 8", "  pp: 8\n  overlapParamGather: true")));
        assertEquals("parallelism.overlapParamGather", zero.path());
        assertEquals(9, zero.location().line());
        assertEquals("found true with zero: 0; expected zero: 1 or 2: the updated weights are all-gathered only under "
                + "the distributed optimizer (Megatron-core's --overlap-param-gather needs --use-distributed-optimizer)",
                zero.message());
        InputError grads = only(errors(VALID.replace("  pp: 8", "  pp: 8\n  zero: 1\n  overlapGradReduce: false\n"
                + "  overlapParamGather: true")));
        assertEquals("parallelism.overlapParamGather", grads.path());
        assertTrue(grads.message().startsWith("found true with overlapGradReduce: false; expected overlapGradReduce: "
                + "true"), grads.message());
    }

    @Test
    void paramGatherDispatchOptionsAreReadWithMegatronDefaults() throws IOException {
        String interleaved = VALID.replace("kind: gpipe", "kind: interleaved\n  v: 2").replace("  pp: 8",
                "  pp: 8\n  zero: 1\n  overlapParamGather: true");
        Scenario s = new ScenarioReader().read(write("a.yaml", interleaved));
        assertTrue(s.stepSequence().alignParamGather(), "Megatron-LM aligns by default");
        assertFalse(s.stepSequence().withOptimizerStep());
        Scenario t = new ScenarioReader().read(write("b.yaml", interleaved.replace("  overlapParamGather: true",
                "  overlapParamGather: true\n  alignParamGather: false\n  overlapParamGatherWithOptimizerStep: true")));
        assertFalse(t.stepSequence().alignParamGather());
        assertTrue(t.stepSequence().withOptimizerStep());
    }

    @Test
    void paramGatherWithTheOptimizerStepNeedsTheInterleavedScheduleAndTheOverlap() throws IOException {
        InputError schedule = only(errors(VALID.replace("  pp: 8", "  pp: 8\n  zero: 1\n  overlapParamGather: true\n"
                + "  overlapParamGatherWithOptimizerStep: true")));
        assertEquals("parallelism.overlapParamGatherWithOptimizerStep", schedule.path());
        assertTrue(schedule.message().startsWith("found true without the interleaved schedule"), schedule.message());
        InputError overlap = only(errors(VALID.replace("kind: gpipe", "kind: interleaved\n  v: 2").replace("  pp: 8",
                "  pp: 8\n  zero: 1\n  overlapParamGatherWithOptimizerStep: true")));
        assertEquals("parallelism.overlapParamGatherWithOptimizerStep", overlap.path());
        assertTrue(overlap.message().startsWith("found true with overlapParamGather: false"), overlap.message());
    }

    @Test
    void unknownFieldIsReportedWithLineAndSuggestion() throws IOException {
        InputError e = only(errors(VALID.replace("  pp: 8", "  pp: 8\n  ppp: 2")));
        assertEquals("parallelism.ppp", e.path());
        assertEquals(9, e.location().line());
        assertEquals(3, e.location().column());
        assertTrue(e.message().contains("did you mean 'pp'?"), e.message());
    }

    @Test
    void misspeltSectionIsSuggested() throws IOException {
        InputError e = only(errors(VALID.replace("schedule:", "shedule:")));
        assertEquals("shedule", e.path());
        assertTrue(e.message().contains("did you mean 'schedule'?"), e.message());
    }

    @Test
    void wrongTypeNamesWhatWasFoundAndExpected() throws IOException {
        InputError e = only(errors(VALID.replace("pp: 8", "pp: eight")));
        assertEquals("parallelism.pp", e.path());
        assertEquals(8, e.location().line());
        assertTrue(e.message().contains("found the text \"eight\", expected an integer"), e.message());
    }

    @Test
    void missingRequiredValue() throws IOException {
        InputError e = only(errors(VALID.replace("  globalBatch: 16\n", "")));
        assertEquals("training.globalBatch", e.path());
        assertTrue(e.message().startsWith("missing required value"), e.message());
        assertEquals(11, e.location().line(), "points at the training section");
    }

    @Test
    void outOfRangeValue() throws IOException {
        InputError e = only(errors(VALID.replace("microBatch: 2", "microBatch: 0")));
        assertEquals("training.microBatch", e.path());
        assertEquals(13, e.location().line());
        assertTrue(e.message().contains("found 0, expected an integer from 1 to"), e.message());
    }

    @Test
    void unknownChoiceListsTheAcceptedNames() throws IOException {
        InputError e = only(errors(VALID.replace("kind: gpipe", "kind: gpip")));
        assertEquals("schedule.kind", e.path());
        assertTrue(e.message().contains("expected one of 1f1b, dualpipe"), e.message());
        assertTrue(e.message().contains("did you mean 'gpipe'?"), e.message());
    }

    @Test
    void pipelineDepthMustDivideTheLayers() throws IOException {
        InputError e = only(errors(VALID.replace("pp: 8", "pp: 7").replace("nodes: 1",
                "nodes: 1\n  gpusPerNode: 7")));
        assertEquals("parallelism.pp", e.path());
        assertTrue(e.message().contains("found 7; expected the stages to divide model.layers (96)"), e.message());
    }

    @Test
    void unevenLayerSplitIsReadAndChecked() throws IOException {
        String seven = VALID.replace("pp: 8", "pp: 7").replace("nodes: 1", "nodes: 1\n  gpusPerNode: 7");
        Scenario s = new ScenarioReader().read(write("ok.yaml",
                seven.replace("pp: 7", "pp: 7\n  layersPerStage: [12, 14, 14, 14, 14, 14, 14]")));
        assertEquals(12, s.trainingStep().split().layers(0));
        assertEquals(14, s.trainingStep().split().layers(6));

        InputError sum = only(errors(seven.replace("pp: 7", "pp: 7\n  layersPerStage: [14, 14, 14, 14, 14, 14, 14]")));
        assertEquals("parallelism.layersPerStage", sum.path());
        assertTrue(sum.message().contains("add up to 98; expected model.layers (96)"), sum.message());

        InputError count = only(errors(seven.replace("pp: 7", "pp: 7\n  layersPerStage: [48, 48]")));
        assertTrue(count.message().contains("found 2 entries; expected one per stage (7)"), count.message());

        InputError item = only(errors(seven.replace("pp: 7", "pp: 7\n  layersPerStage: [12, 14, x, 14, 14, 14, 14]")));
        assertEquals("parallelism.layersPerStage[2]", item.path());
        assertEquals(10, item.location().line());
    }

    @Test
    void megatronAccountingFlagsGiveTheValidationScenariosExplicitSplit() throws IOException {
        // the 405B Bridge row writes Megatron's split by hand; the two flags must give the same list
        Path row = Path.of("..", "scenarios", "validation", "megatron-bridge", "llama31-405b-128xb200-fp8cs-25.11.yaml");
        String text = Files.readString(row);
        Scenario explicit = new ScenarioReader().read(row);
        String flags = text.replaceAll("(?m)^  layersPerStage: \\[.*\\]$",
                "  accountForEmbeddingInPipelineSplit: true\n  accountForLossInPipelineSplit: true");
        assertTrue(!flags.equals(text), "the row's layersPerStage line was not found");
        Scenario accounted = new ScenarioReader().read(write("llama31-405b.yaml", flags));
        assertEquals(explicit.trainingStep().split(), accounted.trainingStep().split());
        assertEquals(1, accounted.trainingStep().split().layers(0));
        assertEquals(2, accounted.trainingStep().split().layers(1));
    }

    @Test
    void megatronAccountingFlagsNeedDivisibleCountsAndNoExplicitList() throws IOException {
        // gpt3-175b: 96 layers; pp 8 (gpipe) divides 96 + 1 + 1 = 98 not
        InputError both = only(errors(VALID.replace("pp: 8", "pp: 8\n  accountForEmbeddingInPipelineSplit: true\n"
                + "  accountForLossInPipelineSplit: true")));
        assertEquals("parallelism.accountForEmbeddingInPipelineSplit", both.path());
        assertTrue(both.message().contains("= 98 evenly"), both.message());
        String seven = VALID.replace("pp: 8", "pp: 7").replace("nodes: 1", "nodes: 1\n  gpusPerNode: 7");
        // 96 + 1 = 97 on 7 stages does not divide either; 96 + 2 = 98 does: 13, 14 x 5, 13
        Scenario ok = new ScenarioReader().read(write("acc.yaml", seven.replace("pp: 7", "pp: 7\n"
                + "  accountForEmbeddingInPipelineSplit: true\n  accountForLossInPipelineSplit: true")));
        assertEquals(13, ok.trainingStep().split().layers(0));
        assertEquals(14, ok.trainingStep().split().layers(3));
        assertEquals(13, ok.trainingStep().split().layers(6));
        InputError loss = only(errors(seven.replace("pp: 7", "pp: 7\n  accountForLossInPipelineSplit: true")));
        assertEquals("parallelism.accountForLossInPipelineSplit", loss.path());
        InputError list = only(errors(seven.replace("pp: 7", "pp: 7\n  layersPerStage: [12, 14, 14, 14, 14, 14, 14]\n"
                + "  accountForLossInPipelineSplit: true")));
        assertTrue(list.message().contains("beside layersPerStage"), list.message());
    }

    private static final String RACKS = """
            name: racks
            cluster:
              preset: gb200-nvl72
              deviceProfile: b200
              nodes: 39
              fabric: rail-optimized
            model:
              preset: gpt3-175b
            parallelism:
              pp: 8
              dp: 351
            schedule:
              kind: 1f1b
            training:
              globalBatch: 702
              microBatch: 1
              seqLen: 1024
            """;

    @Test
    void nvl72RacksOnARailOptimizedFabricTakeAnyRackCount() throws IOException {
        Scenario s = new ScenarioReader().read(write("racks.yaml", RACKS));
        org.clustersim.topology.RackPodSpec pod = assertInstanceOf(org.clustersim.topology.RackPodSpec.class,
                s.cluster());
        assertEquals(2808, pod.gpus());
        assertEquals(90, pod.leaves());
        assertTrue(pod.threeLevel());
        assertEquals(50e9, pod.nicBytesPerS());
        assertEquals("b200", pod.accelerator().name());

        InputError rails = only(errors(RACKS.replace("nodes: 39", "nodes: 2\n  gpusPerNode: 70")
                .replace("pp: 8", "pp: 1").replace("dp: 351", "dp: 140").replace("globalBatch: 702", "globalBatch: 140")));
        assertEquals("cluster.gpusPerNode", rails.path());
        assertTrue(rails.message().contains("use fabric: fat-tree"), rails.message());
    }

    @Test
    void blackwellPresetsNameTheirProfileAndSayWhenItIsMissing() throws IOException {
        for (String preset : List.of("gb200-nvl72", "gb300-nvl72", "dgx-b300")) {
            String chip = org.clustersim.topology.SwitchedClusterSpec.preset(preset, 1).orElseThrow().accelerator()
                    .name();
            String text = RACKS.replace("preset: gb200-nvl72", "preset: " + preset).replace("  deviceProfile: b200\n", "");
            if (org.clustersim.strategies.device.DeviceProfiles.has(chip)) {
                continue; // bundled since: nothing to report
            }
            InputError e = errors(text).get(0);
            assertEquals("cluster.preset", e.path());
            assertTrue(e.message().contains("(" + chip + ") has no bundled device profile"), e.message());
        }
    }

    @Test
    void contextParallelismMustDivideTheSequence() throws IOException {
        String two = VALID.replace("nodes: 1", "nodes: 2");
        Scenario ok = new ScenarioReader().read(write("cp.yaml", two.replace("pp: 8", "pp: 8\n  cp: 2")));
        assertEquals(2, ok.trainingStep().cp());
        InputError e = only(errors(two.replace("pp: 8", "pp: 8\n  cp: 2").replace("seqLen: 1024", "seqLen: 1023")));
        assertEquals("parallelism.cp", e.path());
        assertTrue(e.message().contains("expected a divisor of training.seqLen (1023)"), e.message());
    }

    @Test
    void gpuCountMustMatchTheLayout() throws IOException {
        InputError e = only(errors(VALID.replace("nodes: 1", "nodes: 2")));
        assertEquals("cluster.nodes", e.path());
        assertEquals(4, e.location().line());
        assertTrue(e.message().contains("the cluster has 16 GPUs (2 nodes x 8)"), e.message());
        assertTrue(e.message().contains("uses 8"), e.message());
    }

    @Test
    void globalBatchMustSplitIntoMicrobatches() throws IOException {
        InputError e = only(errors(VALID.replace("globalBatch: 16", "globalBatch: 15")));
        assertEquals("training.globalBatch", e.path());
        assertTrue(e.message().contains("expected a multiple of training.microBatch"), e.message());
    }

    @Test
    void aTorusFabricOnGpusPointsAtTheTpuPresets() throws IOException {
        InputError e = only(errors(VALID.replace("  nodes: 1", "  nodes: 1\n  fabric: torus-3d")));
        assertEquals("cluster.fabric", e.path());
        assertTrue(e.message().contains("tpu-v5p") && e.message().contains("cluster.topology"), e.message());
    }

    private static final String MOE = """
            cluster:
              preset: dgx-h100
              nodes: 8
            model:
              preset: mixtral-8x7b
            parallelism:
              tp: 2
              pp: 4
              dp: 8
              ep: 8
            training:
              globalBatch: 64
              seqLen: 4096
            """;

    @Test
    void readsAMixtureOfExpertsLayoutWithOverrides() throws IOException {
        Scenario s = new ScenarioReader().read(write("s.yaml", MOE.replace("preset: mixtral-8x7b",
                "preset: mixtral-8x7b\n  capacityFactor: 1.25\n  sharedExperts: 1\n  expertImbalance: 1.3")));
        assertEquals(8, s.parallelism().layout().mesh().ep());
        assertEquals(8, s.model().experts().count());
        assertEquals(2, s.model().experts().topK());
        assertEquals(1.25, s.model().experts().capacityFactor());
        assertEquals(1, s.model().experts().shared());
        assertEquals(1.3, s.model().experts().imbalance());
        assertEquals(8, s.trainingStep().ep());
        Scenario custom = new ScenarioReader().read(write("s.yaml", MOE.replace("preset: mixtral-8x7b", """
                layers: 8
                  hidden: 1024
                  heads: 16
                  vocab: 32000
                  experts: 16
                  topK: 4
                  expertFfn: 512
                  nodeLimit: 2
                  denseLayers: 1""").replace("ep: 8", "ep: 4").replace("pp: 4", "pp: 2").replace("nodes: 8", "nodes: 4")));
        assertEquals(16, custom.model().experts().count());
        assertEquals(512, custom.model().experts().ffn());
        assertEquals(2, custom.model().experts().nodeLimit());
        assertEquals(4, new ScenarioReader().read(write("s.yaml", MOE.replace("preset: mixtral-8x7b",
                "preset: deepseek-v3-like\n  layers: 32\n  denseLayers: 0").replace("ep: 8", "ep: 4")))
                .model().experts().nodeLimit(), "the DeepSeek-V3-like preset routes to at most 4 servers");
        assertTrue(!custom.model().isMoeLayer(0) && custom.model().isMoeLayer(1));
    }

    @Test
    void expertParallelismMustFitTheModelAndTheDataParallelGroup() throws IOException {
        InputError notDividingDp = only(errors(MOE.replace("ep: 8", "ep: 3")));
        assertEquals("parallelism.ep", notDividingDp.path());
        assertTrue(notDividingDp.message().contains("expected a divisor of parallelism.dp (8)"), notDividingDp.message());
        InputError dense = only(errors(VALID.replace("  pp: 8", "  pp: 4\n  dp: 2\n  ep: 2")));
        assertEquals("parallelism.ep", dense.path());
        assertTrue(dense.message().contains("gpt3-175b has no experts"), dense.message());
        InputError fsdp = only(errors(MOE.replace("ep: 8", "ep: 8\n  zero: 3")));
        assertTrue(fsdp.message().contains("zero 0, 1 or 2 with expert parallelism"), fsdp.message());
        InputError hot = only(errors(MOE.replace("preset: mixtral-8x7b", "preset: mixtral-8x7b\n  expertImbalance: 0.5")));
        assertEquals("model.expertImbalance", hot.path());
        InputError topK = only(errors(MOE.replace("preset: mixtral-8x7b", "preset: mixtral-8x7b\n  topK: 9")));
        assertEquals("model.topK", topK.path());
        InputError stray = only(errors(VALID.replace("preset: gpt3-175b", "preset: gpt3-175b\n  topK: 2")));
        assertEquals("model.topK", stray.path());
        assertTrue(stray.message().contains("only a mixture-of-experts model takes topK"), stray.message());
    }

    @Test
    void expertTensorParallelismDefaultsToTpAndFoldsWithEpOverAStage() throws IOException {
        Scenario plain = new ScenarioReader().read(write("s.yaml", MOE));
        assertEquals(2, plain.parallelism().layout().mesh().etp(), "Megatron-core: expert TP is TP when unset");
        // EP 16 no longer has to divide DP 8: with expert TP 1 it folds over the stage's 2 x 8 GPUs
        Scenario folded = new ScenarioReader().read(write("f.yaml", MOE.replace("preset: mixtral-8x7b",
                "preset: deepseek-v3-like\n  layers: 32\n  denseLayers: 0").replace("ep: 8", "ep: 16\n  etp: 1")));
        assertEquals(1, folded.trainingStep().etp());
        assertEquals(16, folded.trainingStep().mesh().expertGroup(0).length);
        assertEquals(1, folded.trainingStep().expertShardSize());
        InputError tooWide = only(errors(MOE.replace("preset: mixtral-8x7b", "preset: deepseek-v3-like\n  layers: 32")
                .replace("ep: 8", "ep: 32\n  etp: 1")));
        assertEquals("parallelism.ep", tooWide.path());
        assertTrue(tooWide.message().contains("expected etp x ep = 32 to divide a pipeline stage's tp x cp x dp = 16"),
                tooWide.message());
        assertEquals(11, tooWide.location().line(), "the ep line");
        InputError odd = only(errors(MOE.replace("ep: 8", "ep: 4\n  etp: 4")));
        assertEquals("parallelism.etp", odd.path());
        assertTrue(odd.message().contains("expected a divisor of tp x cp (2)"), odd.message());
        InputError dense = only(errors(VALID.replace("  pp: 8", "  pp: 4\n  tp: 2\n  etp: 1")));
        assertEquals("parallelism.etp", dense.path());
        assertTrue(dense.message().contains("gpt3-175b has no experts"), dense.message());
        InputError fsdp = only(errors(MOE.replace("ep: 8", "ep: 1\n  etp: 1\n  zero: 3")));
        assertEquals("parallelism.etp", fsdp.path());
        assertTrue(fsdp.message().contains("zero 0, 1 or 2 with expert parallelism"), fsdp.message());
    }

    @Test
    void meshOrderShardGroupAndContextVariantAreReadAndChecked() throws IOException {
        Scenario s = new ScenarioReader().read(write("s.yaml", MOE.replace("ep: 8",
                "ep: 8\n  order: tp-dp-pp-cp\n  zero: 1\n  shardGroup: 4\n  cpVariant: ring")));
        assertEquals(List.of(org.clustersim.strategies.training.Mesh.Dim.TP, org.clustersim.strategies.training.Mesh.Dim.DP,
                org.clustersim.strategies.training.Mesh.Dim.PP, org.clustersim.strategies.training.Mesh.Dim.CP), s.parallelism().layout().mesh().order());
        assertEquals(4, s.trainingStep().shardSize());
        assertEquals(org.clustersim.strategies.training.ContextParallel.RING, s.trainingStep().cpKind());
        InputError order = only(errors(MOE.replace("ep: 8", "ep: 8\n  order: tp-pp-dp")));
        assertEquals("parallelism.order", order.path());
        assertTrue(order.message().contains("name tp, cp, pp and dp once each"), order.message());
        InputError shard = only(errors(MOE.replace("ep: 8", "ep: 8\n  zero: 1\n  shardGroup: 3")));
        assertEquals("parallelism.shardGroup", shard.path());
        InputError noZero = only(errors(MOE.replace("ep: 8", "ep: 8\n  shardGroup: 4")));
        assertTrue(noZero.message().contains("with zero 1, 2 or 3"), noZero.message());
    }

    @Test
    void everyScheduleKindIsSelectableWithItsChunks() throws IOException {
        Scenario inter = new ScenarioReader().read(write("s.yaml", VALID.replace("kind: gpipe", "kind: interleaved\n  v: 3")
                .replace("globalBatch: 16", "globalBatch: 32").replace("preset: gpt3-175b", "preset: gpt3-1.3b")));
        assertEquals(ScheduleKind.INTERLEAVED, inter.schedule());
        assertEquals(3, inter.parallelism().vp());
        Scenario zbv = new ScenarioReader().read(write("s.yaml", VALID.replace("kind: gpipe", "kind: zb-v")));
        assertEquals(2, zbv.parallelism().vp(), "ZB-V places two chunks per rank");
        Scenario dual = new ScenarioReader().read(write("s.yaml", VALID.replace("kind: gpipe", "kind: dualpipe")
                .replace("globalBatch: 16", "globalBatch: 32")));
        assertEquals(ScheduleKind.DUALPIPE, dual.schedule());
    }

    @Test
    void scheduleConstraintsAreReportedAtTheSchedule() throws IOException {
        // DualPipe needs m >= 2p: 16 sequences in microbatches of 2 make m = 8 < 16
        InputError e = only(errors(VALID.replace("kind: gpipe", "kind: dualpipe")));
        assertEquals("schedule.kind", e.path());
        assertTrue(e.message().contains("m >= 2p"), e.message());
        assertTrue(e.message().contains("m = training.globalBatch / (microBatch x dp) = 8"), e.message());
        InputError v = only(errors(VALID.replace("kind: gpipe", "kind: interleaved")));
        assertEquals("parallelism.vp", v.path());
        assertTrue(v.message().contains("needs v >= 2"), v.message());
        InputError wrongV = only(errors(VALID.replace("kind: gpipe", "kind: 1f1b\n  v: 2")));
        assertEquals("schedule.v", wrongV.path());
        assertTrue(wrongV.message().contains("interleaved takes v"), wrongV.message());
        // 96 layers in 8 x 5 = 40 stages do not divide
        InputError stages = only(errors(VALID.replace("kind: gpipe", "kind: interleaved\n  v: 5")
                .replace("globalBatch: 16", "globalBatch: 32")));
        assertEquals("parallelism.pp", stages.path());
        assertTrue(stages.message().contains("makes 40 stages"), stages.message());
    }

    @Test
    void neutralValuesOfUnimplementedFieldsAreAccepted() throws IOException {
        Scenario s = new ScenarioReader().read(write("s.yaml", VALID.replace("  pp: 8",
                "  pp: 8\n  tp: 1\n  dp: 1\n  cp: 1\n  zero: 0\n  sequenceParallel: false") + "faults: []\n"));
        assertEquals(1, s.parallelism().layout().mesh().tp());
    }

    @Test
    void allErrorsOfAFileComeInOneReportInFileOrder() throws IOException {
        List<InputError> es = errors(VALID.replace("preset: dgx-h100", "preset: dgx-h900")
                .replace("pp: 8", "pp: -1").replace("seqLen: 1024", "seqLen: long"));
        assertEquals(List.of("cluster.preset", "parallelism.pp", "training.seqLen"),
                es.stream().map(InputError::path).toList());
        assertTrue(es.get(0).message().contains("did you mean 'dgx-h100'?"), es.get(0).message());
    }

    @Test
    void syntaxErrorNamesTheLine() throws IOException {
        InputError e = only(errors("cluster:\n  nodes: [1, 2\nmodel: {}\n"));
        assertTrue(e.message().startsWith("syntax error"), e.message());
        assertTrue(e.location().line() >= 2, "line " + e.location().line());
    }

    @Test
    void duplicateKeysAreErrors() throws IOException {
        InputError e = only(errors(VALID.replace("  pp: 8", "  pp: 8\n  pp: 4")));
        assertTrue(e.message().contains("given twice; the first is on line 8"), e.message());
        assertEquals("parallelism.pp", e.path());
        assertEquals(9, e.location().line());
    }

    @Test
    void aThreeLevelRailFabricWhoseLeavesDoNotFillSpineGroupsIsAnError() throws IOException {
        // 12 scalable units of 4-GPU servers: 48 leaves, which do not go 32 to a spine group
        List<InputError> all = errors(VALID.replace("nodes: 1", "nodes: 384\n  gpusPerNode: 4\n  fabric: rail-optimized"));
        InputError e = all.stream().filter(x -> x.path().equals("cluster.gpusPerNode")).findFirst()
                .orElseThrow(() -> new AssertionError("no error on cluster.gpusPerNode: " + all));
        assertTrue(e.message().contains("48 leaves, expected a multiple of 32"), e.message());
        assertEquals(5, e.location().line());
    }

    @Test
    void railOptimizedFabricAndLinkFaults() throws IOException {
        Scenario s = new ScenarioReader().read(write("s.yaml", VALID.replace("nodes: 1", "nodes: 64\n  fabric: rail-optimized\n"
                + "  oversubscription: 2").replace("  pp: 8", "  pp: 8\n  dp: 1").replace("pp: 8", "pp: 512")
                .replace("preset: gpt3-175b", "preset: gpt3-1.3b\n  layers: 512").replace("globalBatch: 16",
                        "globalBatch: 1024") + """
                faults:
                  - link: node0.gpu0->node0.nvswitch
                    at: 2ms
                    state: degraded
                    fraction: 0.25
                  - link: su0.leaf0->spine3
                """));
        assertEquals(512, s.cluster().gpus());
        assertTrue(s.cluster() instanceof org.clustersim.topology.SuperPodSpec sp && sp.oversubscription() == 2);
        assertEquals(2, s.faults().size());
        assertEquals(2_000_000, s.faults().get(0).atNs());
        assertEquals(0.25, s.faults().get(0).capacityFactor());
        assertEquals(0, s.faults().get(1).atNs(), "from the start by default");
        assertEquals(0, s.faults().get(1).capacityFactor(), "down by default");
        assertEquals(org.clustersim.core.Simulation.Fidelity.FLOW, s.fidelity(), "flow is the default fidelity");
    }

    @Test
    void badFaultsAreReportedWithTheirPaths() throws IOException {
        List<InputError> es = errors(VALID + """
                faults:
                  - link: node0.gpu0->node0.nvswitch
                    at: soon
                  - state: degraded
                    fraction: 0
                """);
        assertEquals(List.of("faults[0].at", "faults[1].fraction", "faults[1].link"),
                es.stream().map(InputError::path).sorted().toList(), es.toString());
    }

    @Test
    void switchNicCableAndGpuFaultsResolveToTheirLinksAndDevices() throws IOException {
        String twoServers = VALID.replace("nodes: 1", "nodes: 2").replace("  pp: 8", "  pp: 8\n  dp: 2");
        Scenario s = new ScenarioReader().read(write("s.yaml", twoServers + """
                faults:
                  - switch: node0.nvswitch
                    at: 1ms
                    for: 2ms
                  - nic: node0.nic3
                    state: degraded
                    fraction: 0.5
                  - link: node0.gpu1<->node0.nvswitch
                  - gpu: node0.gpu5
                    speed: 0.8
                    at: 3ms
                """));
        assertEquals(List.of(Fault.Target.SWITCH, Fault.Target.NIC, Fault.Target.LINK, Fault.Target.GPU),
                s.faults().stream().map(Fault::target).toList());
        FaultEvents ev = s.faultEvents(s.cluster().build());
        // the NVSwitch's 16 links down at 1 ms and back at 3 ms; the NIC's 4 links (to its GPU and its
        // switch, both ways) at half; the cable's two directions down
        long atOne = ev.links().stream().filter(e -> e.atNs() == 1_000_000 && e.capacityFactor() == 0).count();
        long back = ev.links().stream().filter(e -> e.atNs() == 3_000_000 && e.capacityFactor() == 1).count();
        assertEquals(16, atOne);
        assertEquals(16, back);
        assertEquals(4, ev.links().stream().filter(e -> e.capacityFactor() == 0.5).count());
        assertEquals(16 + 16 + 4 + 2, ev.links().size());
        assertEquals(List.of(new org.clustersim.core.Simulation.DeviceEvent(5, 3_000_000, 0.8)), ev.devices());
    }

    @Test
    void faultTargetsMustBeOneAndKnown() throws IOException {
        List<InputError> es = errors(VALID + """
                faults:
                  - link: node0.gpu0->node0.nvswitch
                    gpu: node0.gpu1
                  - gpu: node0.gpu1
                    speed: 1.5
                """);
        assertEquals(List.of("faults[0].gpu", "faults[1].speed"), es.stream().map(InputError::path).sorted()
                .toList(), es.toString());
        Scenario s = new ScenarioReader().read(write("s.yaml", VALID + """
                faults:
                  - gpu: node0.gpu9
                """));
        InputError err = only(assertThrows(InputFileException.class, () -> s.faultEvents(s.cluster().build()))
                .errors());
        assertTrue(err.message().startsWith("no gpu named 'node0.gpu9'"), err.message());
    }

    @Test
    void unknownLinkIsReportedWhenTheTopologyIsBuilt() throws IOException {
        Scenario s = new ScenarioReader().read(write("s.yaml", VALID + """
                faults:
                  - link: node0.gpu0->node0.nvswich
                """));
        InputFileException e = assertThrows(InputFileException.class, () -> s.faultEvents(s.cluster().build()));
        InputError err = only(e.errors());
        assertEquals("faults[0].link", err.path());
        assertEquals(16, err.location().line());
        assertTrue(err.message().contains("did you mean 'node0.gpu0->node0.nvswitch'?"), err.message());
    }

    @Test
    void fileNameAndFormatProblems() {
        Path missing = dir.resolve("nope.yaml");
        InputError e = only(assertThrows(InputFileException.class, () -> new ScenarioReader().read(missing))
                .errors());
        assertEquals("no such file", e.message());
        Path txt = dir.resolve("s.txt");
        InputError e2 = only(assertThrows(InputFileException.class, () -> new ScenarioReader().read(txt))
                .errors());
        assertTrue(e2.message().contains(".yaml, .yml or .json"), e2.message());
    }

    @Test
    void formattedErrorCarriesFileLineColumnAndPath() throws IOException {
        InputError e = only(errors(VALID.replace("pp: 8", "pp: 8.5")));
        assertEquals(dir.resolve("s.yaml") + ":8:7: parallelism.pp: found the number 8.5, expected an integer",
                e.format());
    }

    /** {@link #VALID} with its model section replaced by these lines (indented under model:). */
    private static String withModel(String... lines) {
        return VALID.replace("  preset: gpt3-175b\n", String.join("\n", lines) + "\n");
    }

    @Test
    void attentionShapesAreReadFromPresetsAndFields() throws IOException {
        Scenario oss = new ScenarioReader().read(write("oss.yaml", withModel("  preset: gpt-oss-120b",
                "  layers: 32")));
        assertEquals(64, oss.model().headDim(), "the preset's own head dimension, not 2880 / 64");
        assertTrue(oss.model().isWindowed(0) && !oss.model().isWindowed(1));
        assertTrue(oss.model().rotary());

        Scenario gpt = new ScenarioReader().read(write("gpt.yaml", VALID));
        assertTrue(!gpt.model().rotary(), "GPT-3 has learned positions");

        Scenario custom = new ScenarioReader().read(write("custom.yaml", withModel("  layers: 8", "  hidden: 2880",
                "  heads: 64", "  kvHeads: 8", "  headDim: 64", "  vocab: 32000", "  positionEmbedding: learned",
                "  slidingWindow: {tokens: 256, every: 4, first: 3}")));
        assertEquals(64, custom.model().headDim());
        assertEquals(4096, custom.model().attentionOutputWidth());
        assertTrue(!custom.model().rotary());
        assertTrue(custom.model().isWindowed(3) && custom.model().isWindowed(7) && !custom.model().isWindowed(0));
        assertEquals(256, custom.model().attentionShape().window().tokens());

        Scenario mla = new ScenarioReader().read(write("mla.yaml", withModel("  layers: 8", "  hidden: 7168",
                "  heads: 128", "  vocab: 32000", "  latentAttention:", "    qLoraRank: 1536", "    kvLoraRank: 512",
                "    qkNopeHeadDim: 128", "    qkRopeHeadDim: 64", "    vHeadDim: 128")));
        assertEquals(192, mla.model().headDim());
        assertEquals(128, mla.model().vHeadDim());
        assertEquals(128, mla.model().kvHeads(), "latent attention has a key and value per head");
        Scenario v3 = new ScenarioReader().read(write("v3.yaml", withModel("  preset: deepseek-v3-like",
                "  layers: 8", "  latentAttention: {kvLoraRank: 256}")));
        assertEquals(256, v3.model().latentAttention().kvLoraRank());
        assertEquals(1536, v3.model().latentAttention().qLoraRank(), "the rest from the preset");
    }

    @Test
    void badAttentionShapesNameTheFieldAndWhatWasExpected() throws IOException {
        InputError first = only(errors(withModel("  preset: gpt-oss-120b", "  layers: 32",
                "  slidingWindow: {tokens: 128, every: 2, first: 2}")));
        assertEquals("model.slidingWindow.first", first.path());
        assertEquals(8, first.location().line());
        assertTrue(first.message().contains("found 2, expected less than model.slidingWindow.every (2)"),
                first.message());

        InputError tokens = only(errors(withModel("  preset: llama3-8b", "  slidingWindow: {every: 2}")));
        assertEquals("model.slidingWindow.tokens", tokens.path());
        assertTrue(tokens.message().startsWith("missing required value"), tokens.message());

        InputError stray = only(errors(withModel("  preset: llama3-8b", "  slidingWindow: {tokens: 128, evry: 2}")));
        assertEquals("model.slidingWindow.evry", stray.path());
        assertTrue(stray.message().contains("did you mean 'every'?"), stray.message());

        InputError position = only(errors(withModel("  preset: llama3-8b", "  positionEmbedding: alibi")));
        assertEquals("model.positionEmbedding", position.path());
        assertTrue(position.message().contains("expected one of learned, rotary"), position.message());

        InputError headDim = only(errors(withModel("  preset: deepseek-v3-like", "  layers: 8", "  headDim: 128")));
        assertEquals("model.headDim", headDim.path());
        assertTrue(headDim.message().contains("qkNopeHeadDim + qkRopeHeadDim (192)"), headDim.message());

        InputError kvHeads = only(errors(withModel("  preset: deepseek-v3-like", "  layers: 8", "  kvHeads: 8")));
        assertEquals("model.kvHeads", kvHeads.path());
        assertTrue(kvHeads.message().contains("expected model.heads (128)"), kvHeads.message());

        InputError missing = only(errors(withModel("  layers: 8", "  hidden: 7168", "  heads: 128", "  vocab: 32000",
                "  latentAttention: {qLoraRank: 1536, kvLoraRank: 512, qkNopeHeadDim: 128, vHeadDim: 128}")));
        assertEquals("model.latentAttention.qkRopeHeadDim", missing.path());
        assertTrue(missing.message().startsWith("missing required value"), missing.message());

        InputError learned = only(errors(withModel("  preset: deepseek-v3-like", "  layers: 8",
                "  positionEmbedding: learned")));
        assertEquals("model.positionEmbedding", learned.path());
        assertTrue(learned.message().contains("expected rotary"), learned.message());

        InputError indivisible = only(errors(withModel("  layers: 8", "  hidden: 2880", "  heads: 128",
                "  vocab: 32000")));
        assertEquals("model.heads", indivisible.path());
        assertTrue(indivisible.message().contains("or give model.headDim"), indivisible.message());
    }

    @Test
    void slidingWindowPatternsRepeatFromLayerZero() throws IOException {
        Scenario gemma = new ScenarioReader().read(write("gemma.yaml", withModel("  layers: 16", "  hidden: 1024",
                "  heads: 8", "  vocab: 32000",
                "  slidingWindow: {tokens: 512, pattern: [local, local, local, local, local, global]}")));
        // layers 5 and 11 are global, the other 14 of 16 local
        for (int l = 0; l < 16; l++) {
            assertEquals(l != 5 && l != 11, gemma.model().isWindowed(l), "layer " + l);
        }
        assertEquals(512, gemma.model().attentionShape().window().tokens());

        Scenario preset = new ScenarioReader().read(write("g3.yaml", withModel("  preset: gemma3-27b",
                "  layers: 8", "  slidingWindow: {tokens: 4096}")));
        assertEquals(4096, preset.model().attentionShape().window().tokens());
        assertTrue(preset.model().isWindowed(4) && !preset.model().isWindowed(5) && preset.model().isWindowed(6),
                "tokens alone keeps the preset's pattern");

        Scenario periodic = new ScenarioReader().read(write("p.yaml", withModel("  preset: gemma3-27b",
                "  layers: 8", "  slidingWindow: {every: 2, first: 1}")));
        assertTrue(!periodic.model().isWindowed(0) && periodic.model().isWindowed(1) && !periodic.model().isWindowed(4),
                "every and first replace the preset's pattern");
    }

    @Test
    void badSlidingWindowPatternsNameTheItemAndWhatWasExpected() throws IOException {
        InputError item = only(errors(withModel("  preset: llama3-8b",
                "  slidingWindow: {tokens: 128, pattern: [local, locl, global]}")));
        assertEquals("model.slidingWindow.pattern[1]", item.path());
        assertEquals(7, item.location().line());
        assertTrue(item.message().contains("found the text \"locl\"") && item.message().contains("expected local or global"),
                item.message());

        assertPatternError("expected either pattern or every and first",
                "  slidingWindow: {tokens: 128, every: 2, pattern: [local, global]}");
        assertPatternError("expected at least one local layer", "  slidingWindow: {tokens: 128, pattern: [global, global]}");
        assertPatternError("found an empty list", "  slidingWindow: {tokens: 128, pattern: []}");
        assertPatternError("found no local layer below model.layers (2)", "  layers: 2",
                "  slidingWindow: {tokens: 128, pattern: [global, global, local]}");

        InputError notList = only(errors(withModel("  preset: llama3-8b", "  slidingWindow: {tokens: 128, pattern: local}")));
        assertEquals("model.slidingWindow.pattern", notList.path());
    }

    /** One error, at model.slidingWindow.pattern, for Llama 3 8B with {@code lines}; its message holds {@code expected}. */
    private void assertPatternError(String expected, String... lines) throws IOException {
        String[] model = new String[lines.length + 1];
        model[0] = "  preset: llama3-8b";
        System.arraycopy(lines, 0, model, 1, lines.length);
        InputError e = only(errors(withModel(model)));
        assertEquals("model.slidingWindow.pattern", e.path());
        assertTrue(e.message().contains(expected), e.message());
    }

    @Test
    void parallelBlocksAreReadAndRefusedWhereNotModelled() throws IOException {
        Scenario on = new ScenarioReader().read(write("pb.yaml", withModel("  preset: gpt3-1.3b",
                "  parallelBlocks: true")));
        assertTrue(on.model().parallelBlocks());
        assertTrue(!new ScenarioReader().read(write("s.yaml", VALID)).model().parallelBlocks(), "off by default");

        InputError moe = only(errors(withModel("  preset: mixtral-8x7b", "  layers: 8", "  parallelBlocks: true")));
        assertEquals("model.parallelBlocks", moe.path());
        assertTrue(moe.message().contains("expected false with model.experts"), moe.message());

        String overlap = VALID.replace("  pp: 8\n", "  pp: 1\n  tp: 8\n  sequenceParallel: true\n  tpCommOverlap: true\n")
                .replace("  preset: gpt3-175b\n", "  preset: gpt3-1.3b\n  parallelBlocks: true\n");
        InputError e = only(errors(overlap));
        assertEquals("parallelism.tpCommOverlap", e.path());
        assertTrue(e.message().contains("parallel blocks"), e.message());
    }

    @Test
    void tensorParallelOverlapNeedsSequenceParallelismAndInterferenceIsOnByDefault() throws IOException {
        String layout = VALID.replace("  pp: 8\n", "  pp: 1\n  tp: 8\n  tpCommOverlap: true\n")
                .replace("  nodes: 1\n", "  nodes: 1\n").replace("gpt3-175b", "gpt3-1.3b");
        InputError e = only(errors(layout));
        assertEquals("parallelism.tpCommOverlap", e.path());
        assertEquals(10, e.location().line());
        assertTrue(e.message().contains("set parallelism.sequenceParallel: true"), e.message());
        Scenario on = new ScenarioReader().read(write("on.yaml",
                layout.replace("  tpCommOverlap: true\n", "  tpCommOverlap: true\n  sequenceParallel: true\n")));
        assertTrue(on.parallelism().layout().comm().tpCommOverlap());
        assertTrue(on.interference(), "interference is on unless the scenario turns it off");
        assertTrue(on.trainingStep().tpCommOverlap());
        Scenario off = new ScenarioReader().read(write("off.yaml", VALID + "simulation:\n  interference: false\n"));
        assertEquals(false, off.interference());
        assertEquals(false, off.parallelism().layout().comm().tpCommOverlap(), "Megatron-core's default");
    }
}
