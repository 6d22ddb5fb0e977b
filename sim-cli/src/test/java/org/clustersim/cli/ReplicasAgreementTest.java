package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code simulation.replicas: one} stands for every replica of a symmetric layout: its step time
 * must agree with simulating every replica task by task, within 0.1% (issue 12).
 *
 * <p>Every bundled scenario with more than one data-parallel replica and no fault is symmetric.
 * Each runs here with its own layout, fabric, schedule, model shapes and options, but with fewer
 * layers and microbatches (and, for the two largest, fewer replicas) so that the all-replica run
 * takes seconds: the bundled 16K-GPU step has 3.6 M tasks with every replica, the DeepSeek-V3-like
 * step a 2,048-GPU all-to-all per layer, and the Llama 3 70B FSDP step 8 x 103 K tasks. The other
 * bundled scenarios have one replica (dp 1), where the two settings are the same run.
 */
class ReplicasAgreementTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            // scenario | overrides: dotted path=value, ';' between
            "gpt3-175b-128xh100-tp8-pp8-dp2 | model.layers=16;training.globalBatch=16",
            "mixtral-8x7b-64xh100-tp2-pp4-ep8 | model.layers=8;training.globalBatch=32",
            "llama3-70b-512xh100-tp8-pp4-cp2-fsdp | model.layers=8;training.globalBatch=32",
            "llama3-405b-16k-h100 | cluster.nodes=64;parallelism.dp=4;parallelism.accountForEmbeddingInPipelineSplit=;"
                    + "parallelism.accountForLossInPipelineSplit=;schedule.v=2;model.layers=32;training.globalBatch=64;"
                    + "parallelism.gradBucketMB=64",
            "deepseek-v3-like-2048xh100-pp16-ep64 | cluster.nodes=32;parallelism.pp=4;parallelism.dp=64;"
                    + "parallelism.ep=16;parallelism.layersPerStage=;model.layers=8;training.globalBatch=512",
    })
    void oneReplicaAgreesWithAll(String scenario, String overrides) throws IOException {
        JsonNode one = run(scenario, overrides, "one");
        JsonNode all = run(scenario, overrides, "all");
        long a = one.get("stepTimeNs").asLong();
        long b = all.get("stepTimeNs").asLong();
        assertTrue(Math.abs(a - b) <= 1e-3 * b, scenario + ": one replica " + a + " ns, all " + b + " ns");
        assertTrue(all.get("tasks").asLong() > one.get("tasks").asLong(), "every replica's tasks ran");
        // the work estimate counts one replica's tasks and scales: it must match what ran
        Scenario allScenario = new ScenarioReader().read(dir.resolve("all.yaml"));
        long estimated = WorkEstimate.counted(allScenario, allScenario.trainingStep(), false).tasks();
        long ran = all.get("tasks").asLong();
        assertTrue(Math.abs(estimated - ran) <= 0.05 * ran, scenario + ": estimated " + estimated + " tasks, ran " + ran);
    }

    private JsonNode run(String scenario, String overrides, String replicas) throws IOException {
        Path file = ScenarioOverrides.write(scenario, overrides + ";simulation.replicas=" + replicas
                + ";simulation.allowOom=true", dir.resolve(replicas + ".yaml"));
        Path summary = dir.resolve(replicas + ".json");
        ClusterSimTest.Result r = ClusterSimTest.cli("run", file.toString(), "--no-trace", "--summary",
                summary.toString());
        assertEquals(0, r.code(), r.err());
        return new ObjectMapper().readTree(summary.toFile());
    }
}
