package org.clustersim.study.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.clustersim.core.input.InputError;
import org.clustersim.core.input.InputFileException;
import org.clustersim.strategies.cost.Fp8Recipe;
import org.clustersim.strategies.device.AttentionImpl;
import org.clustersim.strategies.device.DeviceProfiles;
import org.clustersim.strategies.training.MemoryModel;
import org.clustersim.topology.CommTuning;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The scenario fields that choose and adjust the GPUs' device profile and numerics. */
class DeviceProfileScenarioTest {
    @TempDir
    Path dir;

    private static String scenario(String cluster, String model, String training) {
        return """
                cluster:
                  preset: dgx-h100
                  nodes: 1
                %smodel:
                  preset: llama3-8b
                  layers: 8
                %sparallelism:
                  tp: 8
                training:
                  globalBatch: 4
                  seqLen: 4096
                %s""".formatted(cluster, model, training);
    }

    private Path write(String name, String content) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, content);
        return p;
    }

    private List<InputError> errors(Path p) {
        return assertThrows(InputFileException.class, () -> new ScenarioReader().read(p)).errors();
    }

    @Test
    void byDefaultTheBundledProfileOfThePresetsGpuWithItsDefaultAttention() throws IOException {
        Scenario s = new ScenarioReader().read(write("s.yaml", scenario("", "", "")));
        assertEquals(DeviceProfiles.bundled("h100-sxm"), s.device());
        assertEquals(AttentionImpl.CUDNN, s.attention());
        assertEquals(Fp8Recipe.DELAYED, s.training().fp8Recipe());
        assertTrue(s.training().gradAccumulationFusion());
    }

    @Test
    void overridesChangeOnlyTheFieldsTheyName() throws IOException {
        Scenario s = new ScenarioReader().read(write("s.yaml", scenario("""
                  deviceOverrides:
                    memory:
                      streamEfficiency: 0.5
                    launch:
                      hostUs: 8
                """, "", "")));
        assertEquals(0.5, s.device().streamEfficiency());
        assertEquals(8_000, s.device().launch().hostNs());
        DeviceProfiles.bundled("h100-sxm");
        assertEquals(DeviceProfiles.bundled("h100-sxm").launch().gapNs(), s.device().launch().gapNs());
        assertEquals(DeviceProfiles.bundled("h100-sxm").bf16Gemm(), s.device().bf16Gemm());
    }

    @Test
    void overridesOfOneScenarioDoNotReachTheNextReadInTheSameJvm() throws IOException {
        // the bundled profile's parsed tree is read once and shared by every scenario read
        Scenario first = new ScenarioReader().read(write("a.yaml", scenario("""
                  deviceOverrides:
                    memory:
                      streamEfficiency: 0.5
                """, "", "")));
        Scenario second = new ScenarioReader().read(write("b.yaml", scenario("", "", "")));
        assertEquals(0.5, first.device().streamEfficiency());
        assertEquals(DeviceProfiles.bundled("h100-sxm"), second.device());
        assertTrue(second.device().streamEfficiency() != 0.5, "the bundled H100's stream efficiency");
    }

    @Test
    void aBadOverrideIsReportedAtItsLineInTheScenario() throws IOException {
        Path p = write("s.yaml", scenario("""
                  deviceOverrides:
                    memory:
                      streamEficiency: 0.5
                    launch:
                      hostUs: -1
                """, "", ""));
        List<InputError> errs = errors(p);
        assertEquals(2, errs.size(), errs.toString());
        assertEquals("cluster.deviceOverrides.memory.streamEficiency", errs.get(0).path());
        assertEquals(6, errs.get(0).location().line());
        assertTrue(errs.get(0).message().contains("did you mean 'streamEfficiency'"), errs.get(0).message());
        assertEquals("cluster.deviceOverrides.launch.hostUs", errs.get(1).path());
        assertEquals(8, errs.get(1).location().line());
        assertEquals(p, errs.get(0).file());
    }

    @Test
    void aProfileFileIsReadRelativeToTheScenarioAndItsErrorsNameIt() throws IOException {
        String h100 = new String(DeviceProfiles.class.getResourceAsStream(DeviceProfiles.resource("h100-sxm"))
                .readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        Files.createDirectories(dir.resolve("profiles"));
        write("profiles/mine.yaml", h100.replace("name: h100-sxm", "name: my-h100")
                .replace("hostUs: 5.0", "hostUs: 9.0"));
        Scenario s = new ScenarioReader().read(write("s.yaml", scenario("  deviceProfile: profiles/mine.yaml\n", "",
                "")));
        assertEquals("my-h100", s.device().name());
        assertEquals(9_000, s.device().launch().hostNs());
        assertEquals("my-h100", s.cluster().accelerator().name(), "the cluster's GPUs are the profile's chip");

        Path bad = write("profiles/bad.yaml", h100.replace("capacityGB: 80", "capacityGB: -80"));
        List<InputError> errs = errors(write("t.yaml", scenario("  deviceProfile: profiles/bad.yaml\n", "", "")));
        assertEquals(1, errs.size(), errs.toString());
        assertEquals(bad.toAbsolutePath(), errs.get(0).file().toAbsolutePath());
        assertEquals("memory.capacityGB", errs.get(0).path());

        errs = errors(write("u.yaml", scenario("  deviceProfile: profiles/none.yaml\n", "", "")));
        assertEquals("cluster.deviceProfile", errs.get(0).path());
        assertTrue(errs.get(0).message().contains("h100-sxm"), "lists the bundled profiles: " + errs.get(0));
    }

    @Test
    void theClustersCollectiveTuningFollowsItsGpuModel() throws IOException {
        Scenario a100 = new ScenarioReader().read(write("a.yaml", scenario("", "", "").replace("dgx-h100",
                "dgx-a100")));
        assertEquals(CommTuning.A100, a100.cluster().build().tuning(), "no NVLS on A100's NVSwitch");
        Scenario h100 = new ScenarioReader().read(write("h.yaml", scenario("", "", "")));
        assertEquals(CommTuning.H100, h100.cluster().build().tuning());
    }

    /** 8-byte all-reduce over the first server's 8 GPUs of the scenario's step, in us. */
    private static double smallestAllReduceUs(Scenario s) {
        var t = s.trainingStep().topology();
        var eight = new org.clustersim.strategies.collective.CommGroup(new int[] {0, 1, 2, 3, 4, 5, 6, 7});
        return new org.clustersim.strategies.collective.CollectiveStudy(t, org.clustersim.core.Simulation.Fidelity.FLOW,
                List.of()).time("auto", org.clustersim.strategies.collective.CollectiveOp.ALL_REDUCE, eight, 8) / 1e3;
    }

    @Test
    void theStepRunsCollectivesAsTheProfilesFitSays() throws IOException {
        // the bundled H100 profile: nccl-tests' 13.67 us for 8 bytes on 8 GPUs (collectives.md)
        assertEquals(13.67, smallestAllReduceUs(new ScenarioReader().read(write("h.yaml", scenario("", "", "")))),
                0.02 * 13.67);
        String h100 = new String(getClass().getResourceAsStream("/org/clustersim/profiles/h100-sxm.yaml")
                .readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        Files.createDirectories(dir.resolve("profiles"));
        write("profiles/slow.yaml", h100.replace("latencyUs: 13.67", "latencyUs: 30"));
        assertEquals(30, smallestAllReduceUs(new ScenarioReader().read(write("s.yaml", scenario(
                "  deviceProfile: profiles/slow.yaml\n", "", "")))), 0.02 * 30);
    }

    @Test
    void aBundledProfileCanBeNamedForAnotherChip() throws IOException {
        Scenario s = new ScenarioReader().read(write("s.yaml", scenario("  deviceProfile: h200-sxm\n", "", "")));
        assertEquals("h200-sxm", s.cluster().accelerator().name());
        assertEquals(141e9, s.cluster().accelerator().hbmBytes(), 1);
    }

    @Test
    void attentionMustHaveTablesInTheProfile() throws IOException {
        Scenario s = new ScenarioReader().read(write("s.yaml", scenario("", "  attention: flash3\n", "")));
        assertEquals(AttentionImpl.FLASH3, s.attention());
        Path a100 = write("a.yaml", scenario("", "  attention: flash3\n", "").replace("dgx-h100", "dgx-a100"));
        InputError e = errors(a100).get(0);
        assertEquals("model.attention", e.path());
        assertTrue(e.message().contains("expected standard or one of the profile's: flash2"), e.message());
        Scenario flash = new ScenarioReader().read(write("f.yaml", scenario("", "  attention: flash\n", "")
                .replace("dgx-h100", "dgx-a100")));
        assertEquals(AttentionImpl.FLASH2, flash.attention(), "flash: the device's default fused kernel");
    }

    /**
     * flash names the profile's default fused kernel; a profile with none (default standard, no
     * tables) must not run standard in its place silently.
     */
    @Test
    void flashOnAProfileWithoutAFusedTableIsAnErrorAtItsLine() throws IOException {
        String h100;
        try (var in = DeviceProfiles.class.getResourceAsStream("/org/clustersim/profiles/h100-sxm.yaml")) {
            h100 = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        int from = h100.indexOf("\nattention:");
        int to = h100.indexOf("\nlaunch:");
        write("bare.yaml", h100.substring(0, from) + "\nattention:\n  default: standard\n  tables: []"
                + h100.substring(to));
        String bare = scenario("  deviceProfile: bare.yaml\n", "  attention: flash\n", "");
        InputError e = errors(write("f.yaml", bare)).get(0);
        assertEquals("model.attention", e.path());
        assertEquals(8, e.location().line(), "the line of model.attention: " + e);
        assertTrue(e.message().contains("found 'flash'") && e.message().contains("no fused attention table"),
                e.message());
        Scenario standard = new ScenarioReader().read(write("s.yaml", bare.replace("flash", "standard")));
        assertEquals(AttentionImpl.STANDARD, standard.attention());
        Scenario absent = new ScenarioReader().read(write("a.yaml", bare.replace("  attention: flash\n", "")));
        assertEquals(AttentionImpl.STANDARD, absent.attention(), "absent: the profile's default");
    }

    /** Megatron-core's rule: max(40 M, 1 M x dp x cp) parameters, in bytes of main gradients. */
    @Test
    void gradientBucketsFollowMegatronCoresRuleUnlessGiven() throws IOException {
        Scenario eight = new ScenarioReader().read(write("a.yaml", scenario("", "", "").replace("tp: 8", "dp: 8")
                .replace("globalBatch: 4", "globalBatch: 8")));
        assertEquals(40_000_000L * 4, eight.parallelism().layout().comm().bucketBytes(), "40 M fp32 gradients");
        Scenario bf16 = new ScenarioReader().read(write("b.yaml", scenario("", "", "  mainGradDtype: bf16\n")
                .replace("tp: 8", "dp: 8").replace("globalBatch: 4", "globalBatch: 8")));
        assertEquals(40_000_000L * 2, bf16.parallelism().layout().comm().bucketBytes());
        double fp32Grads = new MemoryModel(eight.trainingStep()).states(0).gradients();
        assertEquals(fp32Grads / 2, new MemoryModel(bf16.trainingStep()).states(0).gradients(), 1,
                "bf16 main gradients hold half the memory");
        Scenario wide = new ScenarioReader().read(write("c.yaml", """
                cluster: {preset: dgx-h100, nodes: 8}
                model: {preset: llama3-8b, layers: 8}
                parallelism: {dp: 32, cp: 2}
                training: {globalBatch: 32, seqLen: 4096}
                """));
        assertEquals(64_000_000L * 4, wide.parallelism().layout().comm().bucketBytes(), "1 M per data-parallel and context rank");
        Scenario given = new ScenarioReader().read(write("d.yaml", scenario("", "", "").replace("tp: 8",
                "dp: 8\n  gradBucketMB: 25").replace("globalBatch: 4", "globalBatch: 8")));
        assertEquals(25_000_000L, given.parallelism().layout().comm().bucketBytes());
    }

    @Test
    void anFp8RecipeNeedsFp8() throws IOException {
        InputError e = errors(write("s.yaml", scenario("", "", "  fp8Recipe: current\n"))).get(0);
        assertEquals("training.fp8Recipe", e.path());
        Scenario s = new ScenarioReader().read(write("t.yaml", scenario("", "",
                "  precision: fp8\n  fp8Recipe: blockwise\n  gradAccumulationFusion: false\n")));
        assertEquals(Fp8Recipe.BLOCKWISE, s.training().fp8Recipe());
        assertEquals(Fp8Recipe.BLOCKWISE, s.kernelCosts().recipe());
        assertTrue(!s.kernelCosts().gradAccumulationFusion());
    }
}
