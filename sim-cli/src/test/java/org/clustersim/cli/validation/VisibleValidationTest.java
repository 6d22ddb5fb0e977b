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
 * Megatron-Bridge's published training throughputs on DGX H100, DGX B200 and GB200 / GB300 NVL72
 * (the visible rows of the shared validation reference and the Blackwell rows of the 25.11 and
 * 26.04 tables; layouts and settings in docs/validation-sources.md)
 * against the simulator. Every runnable row is a scenario in
 * scenarios/validation/megatron-bridge/, run through the {@code run} command exactly as a user
 * runs it (memory check included); tokens/s/GPU = GBS x seq / step / GPUs is compared with the
 * published figure. Rows the simulator cannot express yet sit in pending/ and are only parsed.
 * The published throughputs are never used to set any parameter.
 *
 * <p>With the device profiles, interference, TP communication overlap and the parameter gathers
 * overlapped with the forward as Megatron-core dispatches them (align_param_gather,
 * overlap_param_gather_with_optimizer_step), data-parallel collectives as NCCL runs them; the
 * per-row errors, each explained by mechanism, are in docs/validation.md (issue 32 re-run). The
 * bounds are regression guards set from today's errors plus a margin (goal: mean 5%, no row over
 * 12%). The 21 runs take about 30 s; the pending DeepSeek-V3 H100 row alone takes
 * minutes, another reason it is not run here.
 */
class VisibleValidationTest {
    static final Path DIR = Path.of("..", "scenarios", "validation", "megatron-bridge");
    static final double ROW_BOUND = 0.19;
    /**
     * Rows whose error has a named mechanism still missing (docs/validation.md, issue 32), bounded
     * at today's error plus a margin: the GB300 rows (-15% to -22%: the gb300 profile is B300's
     * measured kernels at GB200's ratios, with GB200's attention tables; no GB300 kernel measurement
     * is published), the small-expert MoE and B200 DeepSeek-V3 rows (+30% to +48%: HybridEP's own
     * kernels and SMs, the host's lost lead after each dispatcher synchronisation and MXFP8 grouped
     * GEMMs without a measured table).
     */
    static final Map<String, Double> ROW_BOUNDS = Map.of(
            "llama3-70b-64xgb300-fp8cs-26.04", 0.25,
            "llama3-70b-64xgb300-nvfp4-26.04", 0.27,
            "llama31-405b-256xgb300-mxfp8-26.04", 0.23,
            "qwen3-30b-a3b-8xgb200-mxfp8-26.04", 0.52,
            "qwen3-30b-a3b-8xb200-mxfp8-26.04", 0.41,
            "deepseek-v3-256xb200-mxfp8-26.04", 0.34);
    static final double MEAN_BOUND = 0.16;

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
            new Row("llama31-405b-128xb200-fp8cs-25.11", 128, 64, 8192, 661),
            new Row("llama3-8b-8xb200-fp8cs-25.11", 8, 128, 8192, 30624),
            new Row("llama3-8b-8xgb200-fp8cs-25.11", 8, 128, 8192, 31508),
            new Row("llama3-8b-8xgb200-fp8mx-25.11", 8, 128, 8192, 29789),
            new Row("llama3-8b-8xgb300-fp8cs-25.11", 8, 128, 8192, 37556),
            new Row("llama31-405b-128xb200-fp8mx-25.11", 128, 64, 8192, 624),
            new Row("llama3-70b-64xgb200-fp8cs-26.04", 64, 256, 8192, 4143),
            new Row("llama3-70b-64xgb300-fp8cs-26.04", 64, 256, 8192, 5243),
            new Row("llama3-70b-64xgb200-mxfp8-26.04", 64, 256, 8192, 3828),
            new Row("llama3-70b-64xgb300-nvfp4-26.04", 64, 256, 8192, 7397),
            new Row("llama31-405b-256xgb300-mxfp8-26.04", 256, 1536, 8192, 968),
            new Row("qwen3-30b-a3b-8xgb200-mxfp8-26.04", 8, 512, 4096, 26032),
            new Row("qwen3-30b-a3b-8xb200-mxfp8-26.04", 8, 512, 4096, 26859),
            new Row("deepseek-v3-256xgb200-mxfp8-26.04", 256, 4096, 4096, 4193),
            new Row("deepseek-v3-256xb200-mxfp8-26.04", 256, 4096, 4096, 2815));

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
