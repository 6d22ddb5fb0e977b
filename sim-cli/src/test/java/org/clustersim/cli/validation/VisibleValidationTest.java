package org.clustersim.cli.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.clustersim.cli.ClusterSim;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Megatron-Bridge's published training throughputs on DGX H100 and DGX B200 (the visible rows
 * of the shared validation reference; layouts and settings in docs/validation-sources.md)
 * against the simulator. Every runnable row is a scenario in
 * scenarios/validation/megatron-bridge/, run through the {@code run} command exactly as a user
 * runs it (memory check included); tokens/s/GPU = GBS x seq / step / GPUs is compared with the
 * published figure. Rows the simulator cannot express yet sit in pending/ and are only parsed.
 * The published throughputs are never used to set any parameter.
 *
 * <p>With the device profiles, interference, TP communication overlap and the parameter gathers
 * overlapped with the forward as Megatron-core dispatches them (align_param_gather,
 * overlap_param_gather_with_optimizer_step), data-parallel collectives as NCCL runs them; the
 * per-row errors, each explained by mechanism, are in docs/validation.md (issue 30 re-run). The
 * bounds are regression guards set from today's errors plus a margin (goal: mean 5%, no row over
 * 12%). The seven runs take
 * about 25 s on two cores; the pending DeepSeek-V3 row alone takes minutes, another reason it
 * is not run here.
 */
class VisibleValidationTest {
    static final Path DIR = Path.of("..", "scenarios", "validation", "megatron-bridge");
    static final double ROW_BOUND = 0.19;
    /**
     * The B200 row with the b200 profile's kernels from Blackwell measurements (issue 32): +26.2%
     * (779 to 834 tokens/s/GPU; the FP8 surface fitted to B200's measured shapes is 14-15% faster
     * than H100's constants were at the m = 1024 chunks TE's TP overlap runs). Sustained clocks under
     * the power limit are not modelled yet (docs/calibration/h200-device-2026-11-26.md: -13% on H200).
     */
    static final Map<String, Double> ROW_BOUNDS = Map.of("llama31-405b-128xb200-fp8cs-25.11", 0.28);
    static final double MEAN_BOUND = 0.14;

    /** file (without .yaml), GPUs, global batch, sequence length, published tokens/s/GPU. */
    record Row(String file, int gpus, int globalBatch, int seqLen, double published) {
    }

    static final List<Row> TABLE = List.of(
            new Row("llama3-8b-8xh100-fp8-25.09", 8, 128, 8192, 14079),
            new Row("llama3-70b-64xh100-fp8-25.09", 64, 128, 8192, 1619),
            new Row("llama31-405b-1024xh100-fp8-25.09", 1024, 512, 8192, 302),
            new Row("llama3-8b-8xh100-fp8cs-25.11", 8, 128, 8192, 14451),
            new Row("llama3-70b-64xh100-fp8cs-25.11", 64, 128, 8192, 1602),
            new Row("llama31-405b-1024xh100-fp8cs-25.11", 1024, 512, 8192, 292),
            new Row("llama31-405b-128xb200-fp8cs-25.11", 128, 64, 8192, 661));

    /** Rows of the reference the simulator cannot express yet: parsed, not compared. */
    static final List<String> PENDING = List.of("deepseek-v3-1024xh100-fp8-25.09", "gpt-oss-120b-64xh100-bf16-25.11");

    @TempDir
    Path dir;

    @Test
    void everyRunnableRowWithinItsBoundAndTheMeanWithinItsBound() throws IOException {
        StringBuilder table = new StringBuilder("| row | published tokens/s/GPU | simulated | error | simulated in |\n"
                + "|---|---|---|---|---|\n");
        List<Double> errors = new ArrayList<>();
        for (Row row : TABLE) {
            Path file = DIR.resolve(row.file() + ".yaml");
            Scenario scenario = new ScenarioReader().read(file);
            assertEquals(row.gpus(), scenario.parallelism().gpus(), row.file() + ": GPUs of the layout");
            assertEquals(row.globalBatch(), scenario.training().globalBatch(), row.file() + ": global batch");
            assertEquals(row.seqLen(), scenario.training().seqLen(), row.file() + ": sequence length");

            Path summary = dir.resolve(row.file() + ".json");
            long t0 = System.nanoTime();
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int code = ClusterSim.execute(new String[] {"run", file.toString(), "--no-trace", "--summary",
                summary.toString()}, new PrintWriter(out), new PrintWriter(err));
            double wall = (System.nanoTime() - t0) / 1e9;
            assertEquals(0, code, row.file() + ": " + err);

            JsonNode s = new ObjectMapper().readTree(summary.toFile());
            double seconds = s.get("stepTimeNs").asLong() / 1e9;
            double simulated = (double) row.globalBatch() * row.seqLen() / seconds / row.gpus();
            double error = (simulated - row.published()) / row.published();
            errors.add(Math.abs(error));
            table.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %+.1f%% | %.1f s |%n", row.file(),
                    row.published(), simulated, 100 * error, wall));
        }
        double mae = errors.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
        table.append(String.format(Locale.ROOT, "%nmean absolute error %.1f%%%n", 100 * mae));
        System.out.print(table);
        for (int i = 0; i < TABLE.size(); i++) {
            assertTrue(errors.get(i) <= ROW_BOUNDS.getOrDefault(TABLE.get(i).file(), ROW_BOUND), TABLE.get(i).file() + " off by " + 100 * errors.get(i) + "%\n"
                    + table);
        }
        assertTrue(mae <= MEAN_BOUND, "mean absolute error " + 100 * mae + "%\n" + table);
    }

    /** A scenario added to the folder without a table row (or a row whose file is gone) fails here. */
    @Test
    void theTableAndTheScenarioFoldersNameTheSameRows() throws IOException {
        assertEquals(TABLE.stream().map(Row::file).collect(Collectors.toCollection(TreeSet::new)), yamlNames(DIR),
                "scenarios/validation/megatron-bridge/*.yaml against TABLE");
        assertEquals(new TreeSet<>(PENDING), yamlNames(DIR.resolve("pending")), "pending/*.yaml against PENDING");
    }

    /** Pending rows must stay valid scenarios (the validate command accepts them), ready to run. */
    @Test
    void pendingRowsStillValidate() {
        for (String name : PENDING) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int code = ClusterSim.execute(new String[] {"validate", DIR.resolve("pending").resolve(name + ".yaml")
                .toString()}, new PrintWriter(out), new PrintWriter(err));
            assertEquals(0, code, name + ": " + err);
            assertTrue(out.toString().contains(": ok ("), name + ": " + out);
        }
    }

    private static Set<String> yamlNames(Path folder) throws IOException {
        try (Stream<Path> files = Files.list(folder)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".yaml"))
                    .map(n -> n.substring(0, n.length() - ".yaml".length())).collect(Collectors.toCollection(TreeSet::new));
        }
    }
}
