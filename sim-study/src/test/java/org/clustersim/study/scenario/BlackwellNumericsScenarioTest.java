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
import org.clustersim.strategies.cost.Bf16Layers;
import org.clustersim.strategies.cost.Fp8Recipe;
import org.clustersim.strategies.cost.Precision;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code training.fp8Recipe: mxfp8}, {@code training.precision: nvfp4} and the layers kept in bf16, as read. */
class BlackwellNumericsScenarioTest {
    @TempDir
    Path dir;

    /** A scenario on {@code preset} whose training section ends with {@code training} (each line indented). */
    private Path scenario(String name, String preset, String training) throws IOException {
        Path p = dir.resolve(name + ".yaml");
        Files.writeString(p, """
                cluster:
                  preset: %s
                  nodes: 1
                model:
                  preset: llama3-8b
                  layers: 8
                parallelism:
                  tp: 8
                training:
                  globalBatch: 4
                  seqLen: 4096
                %s""".formatted(preset, training));
        return p;
    }

    private List<InputError> errors(Path p) {
        return assertThrows(InputFileException.class, () -> new ScenarioReader().read(p)).errors();
    }

    @Test
    void blackwellReadsMxfp8AndNvfp4WithTheLayersKeptInBf16() throws IOException {
        Scenario mx = new ScenarioReader().read(scenario("mx", "dgx-b200", """
                  precision: fp8
                  fp8Recipe: mxfp8
                  fp8ParamGather: true
                """));
        assertEquals(Precision.FP8, mx.training().precision());
        assertEquals(Fp8Recipe.MXFP8, mx.training().fp8Recipe());
        assertEquals(4, mx.kernelCosts().weightGatherBytes(), 0, "gathered through the fp32 gradient buffer");
        Scenario fp4 = new ScenarioReader().read(scenario("fp4", "dgx-b200", """
                  precision: nvfp4
                  bf16LayersAtStart: 1
                  bf16LayersAtEnd: 2
                """));
        assertEquals(Precision.NVFP4, fp4.training().precision());
        assertEquals(new Bf16Layers(1, 2), fp4.trainingStep().numerics().bf16Layers());
        assertTrue(fp4.trainingStep().numerics().bf16Layer(7, 8) && !fp4.trainingStep().numerics().bf16Layer(5, 8));
    }

    @Test
    void nvfp4AndMxfp8NeedBlackwellAndEachErrorIsAtItsField() throws IOException {
        List<InputError> fp4 = errors(scenario("fp4-h100", "dgx-h100", """
                  precision: nvfp4
                """));
        assertEquals(1, fp4.size(), fp4.toString());
        assertEquals("training.precision", fp4.get(0).path());
        assertEquals(12, fp4.get(0).location().line());
        assertTrue(fp4.get(0).message().contains("h100-sxm") && fp4.get(0).message().contains("gemm.nvfp4"),
                fp4.get(0).message());
        List<InputError> mx = errors(scenario("mx-h100", "dgx-h100", """
                  precision: fp8
                  fp8Recipe: mxfp8
                """));
        assertEquals(1, mx.size(), mx.toString());
        assertEquals("training.fp8Recipe", mx.get(0).path());
        assertEquals(13, mx.get(0).location().line());
    }

    /**
     * A profile's own {@code gemm.mxfp8} surface is where MXFP8 GEMMs run; without it, the fp8
     * surface. Here b200's bundled profile (which has one) against a copy without it.
     */
    @Test
    void mxfp8GemmsRunAtTheProfilesMxfp8SurfaceWhenItHasOne() throws IOException {
        String b200 = new String(org.clustersim.strategies.device.DeviceProfiles.class.getResourceAsStream(
                org.clustersim.strategies.device.DeviceProfiles.resource("b200")).readAllBytes(),
                java.nio.charset.StandardCharsets.UTF_8).replace("name: b200", "name: b200-nomx");
        int from = b200.indexOf("\n  mxfp8:\n");
        int to = b200.indexOf("\n  nvfp4:\n");
        assertTrue(from > 0 && to > from, "the test cuts b200's mxfp8 surface, which precedes its nvfp4 one");
        Files.writeString(dir.resolve("nomx.yaml"), b200.substring(0, from) + b200.substring(to));
        Scenario with = new ScenarioReader().read(scenario("with", "dgx-b200", """
                  precision: fp8
                  fp8Recipe: mxfp8
                """));
        Scenario without = new ScenarioReader().read(scenario("without", "dgx-b200\n  deviceProfile: nomx.yaml", """
                  precision: fp8
                  fp8Recipe: mxfp8
                """));
        var bundled = org.clustersim.strategies.device.DeviceProfiles.bundled("b200");
        assertEquals(bundled.mxfp8Gemm().bestFlops(), with.kernelCosts().surface().bestFlops(), 1e9);
        assertEquals(bundled.fp8Gemm().bestFlops(), without.kernelCosts().surface().bestFlops(), 1e9);
        assertTrue(bundled.mxfp8Gemm().bestFlops() < bundled.fp8Gemm().bestFlops(), "the two surfaces differ");
        // a large GEMM takes longer at the slower block-scaled rate
        double ratio = with.kernelCosts().gemm(16384, 16384, 16384) / without.kernelCosts().gemm(16384, 16384, 16384);
        assertTrue(ratio > 1.01, "ratio " + ratio);
    }

    @Test
    void recipesAndBf16LayersNeedALowPrecision() throws IOException {
        List<InputError> e = errors(scenario("bf16", "dgx-b200", """
                  precision: bf16
                  fp8Recipe: mxfp8
                  bf16LayersAtEnd: 2
                """));
        assertEquals(List.of("training.fp8Recipe", "training.bf16LayersAtEnd"), e.stream().map(InputError::path).toList());
        assertEquals(List.of(13, 14), e.stream().map(x -> x.location().line()).toList());
        List<InputError> recipe = errors(scenario("fp4-recipe", "dgx-b200", """
                  precision: nvfp4
                  fp8Recipe: current
                """));
        assertEquals("training.fp8Recipe", recipe.get(0).path());
        assertTrue(recipe.get(0).message().contains("nvfp4 is a recipe of its own"), recipe.get(0).message());
        List<InputError> many = errors(scenario("many", "dgx-b200", """
                  precision: nvfp4
                  bf16LayersAtStart: 4
                  bf16LayersAtEnd: 5
                """));
        assertEquals(1, many.size(), many.toString());
        assertEquals("training.bf16LayersAtEnd", many.get(0).path());
        assertTrue(many.get(0).message().contains("has 8"), many.get(0).message());
    }
}
