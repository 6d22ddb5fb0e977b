package org.clustersim.cli.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;
import org.clustersim.study.SimulatedStep;
import org.clustersim.strategies.training.TrainingStep;
import org.junit.jupiter.api.Test;

/**
 * The Megatron-LM weak-scaling table (Narayanan et al., SC'21, table 1, in the shared
 * reference) against the simulator: every row is a bundled scenario in
 * scenarios/validation/megatron-sc21/. Like is compared with like: the paper's own FLOP count (its
 * equation 3, recomputation included) divided by the simulated step time (the step as {@code
 * clustersim run} simulates and reports it, {@link SimulatedStep}) and the GPU count.
 * The published throughputs are never used to set any parameter, and the scenarios carry no
 * device override (ValidationScenarioKnobsTest): the bundled A100 profile runs as it is.
 *
 * <p>Goal (issue 30, shared with the other fidelity work): mean absolute error at most 5%, no row
 * over 12%. Not reached: without the former {@code memory.streamEfficiency: 0.36} override (a fit
 * to this table) every row comes out 15-31% optimistic. The bounds below are regression guards
 * (today's error plus a small margin), not the goal; see docs/validation.md for the mechanisms
 * still missing (A100 GEMM rates at these shapes under 2021's cuBLAS, the score matrix's
 * element-wise kernels of 2021 without an A100 single-kernel measurement).
 */
class MegatronSc21ValidationTest {
    /** name, layers, hidden, GPUs, batch, published TFLOP/s per GPU. */
    static final Object[][] TABLE = {
        {"1.7b", 24, 2304, 32, 512, 137.0}, {"3.6b", 30, 3072, 64, 512, 138.0},
        {"7.5b", 36, 4096, 128, 512, 142.0}, {"18.4b", 40, 6144, 256, 1024, 135.0},
        {"39.1b", 48, 8192, 512, 1536, 138.0}, {"76.1b", 60, 10240, 1024, 1792, 140.0},
        {"145.6b", 80, 12288, 1536, 2304, 148.0}, {"310.1b", 96, 16384, 1920, 2160, 155.0},
        {"529.6b", 105, 20480, 2520, 2520, 163.0}, {"1008b", 128, 25600, 3072, 3072, 163.0}};

    /** The paper's FLOPs per step: 96 B s l h^2 (1 + s/(6h) + V/(16 l h)). */
    static double paperFlops(int layers, int hidden, int batch) {
        double s = 2048;
        double v = 51200;
        double h = hidden;
        return 96 * batch * s * layers * h * h * (1 + s / (6 * h) + v / (16 * layers * h));
    }

    /**
     * Regression guards, not the goal (mean 5%, no row over 12%): today's worst row (GPT 1.7B,
     * +30.3%) and mean absolute error (22.4%), every row optimistic, plus a small margin.
     */
    static final double ROW_BOUND = 0.32;
    static final double MEAN_BOUND = 0.24;

    @Test
    void everyRowAndTheMeanWithinTodaysRegressionGuards() {
        StringBuilder table = new StringBuilder(
                "| model | GPUs | published TFLOP/s | simulated TFLOP/s | error |\n|---|---|---|---|---|\n");
        List<Double> errors = new ArrayList<>();
        for (Object[] row : TABLE) {
            Path file = Path.of("..", "scenarios", "validation", "megatron-sc21", "gpt-" + row[0] + ".yaml");
            Scenario scenario = new ScenarioReader().read(file);
            TrainingStep step = scenario.trainingStep();
            int gpus = (int) row[3];
            assertEquals(gpus, step.tp() * step.pp() * step.dp(), row[0] + " layout");
            double seconds = SimulatedStep.of(scenario, step, false).figures().stepTimeNs() / 1e9;
            double simulated = paperFlops((int) row[1], (int) row[2], (int) row[4]) / seconds / gpus / 1e12;
            double published = (double) row[5];
            double error = (simulated - published) / published;
            errors.add(Math.abs(error));
            table.append(String.format(Locale.ROOT, "| GPT %s | %d | %.0f | %.1f | %+.1f%% |%n",
                    ((String) row[0]).toUpperCase(Locale.ROOT), gpus, published, simulated, 100 * error));
        }
        double mae = errors.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
        table.append(String.format(Locale.ROOT, "%nmean absolute error %.1f%%%n", 100 * mae));
        System.out.print(table);
        for (int i = 0; i < TABLE.length; i++) {
            assertTrue(errors.get(i) <= ROW_BOUND, "GPT " + TABLE[i][0] + " off by " + 100 * errors.get(i) + "%\n" + table);
        }
        assertTrue(mae <= MEAN_BOUND, "mean absolute error " + 100 * mae + "%\n" + table);
    }
}
