package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A TPU mesh with a tensor axis and no collective matmul: in the backward each dense block's
 * input-gradient reduce-scatter and the next block's output-gradient all-gather run under the
 * block's weight-gradient pass, as XLA's latency-hiding scheduler places async collectives; the
 * forward's collectives stay exposed between the blocks. Read from the Chrome trace of a
 * two-layer Llama-3-8B step on a v5e 4x4 slice (FSDP 4 x tensor 4).
 */
class XlaAsyncTensorCollectivesTest {
    private static final String SCENARIO = """
            name: xla-async-tp
            cluster: {preset: tpu-v5e, topology: 4x4}
            model: {preset: llama3-8b, layers: 2}
            parallelism:
              mesh: {ici_fsdp: 4, ici_tensor: 4}
              collectiveMatmul: false
            training: {globalBatch: 16, microBatch: 4, seqLen: 2048, remat: full}
            simulation: {replicas: one}
            """;

    @TempDir
    Path dir;

    /** The first chip's events by name (its first occurrence): start and end in microseconds. */
    private Map<String, double[]> events() throws IOException {
        Path file = dir.resolve("s.yaml");
        Files.writeString(file, SCENARIO);
        Path trace = dir.resolve("t.json");
        ClusterSimTest.Result r = ClusterSimTest.cli("run", file.toString(), "--trace=" + trace,
                "--trace-format=json");
        assertEquals(0, r.code(), r.err());
        Map<String, double[]> byName = new HashMap<>();
        for (JsonNode e : new ObjectMapper().readTree(trace.toFile()).get("traceEvents")) {
            if ("X".equals(e.path("ph").asText()) && e.path("pid").asInt() == 1) {
                double ts = e.get("ts").asDouble();
                byName.putIfAbsent(e.get("name").asText(), new double[] {ts, ts + e.get("dur").asDouble()});
            }
        }
        return byName;
    }

    private static double[] find(Map<String, double[]> events, String name) {
        double[] e = events.get(name);
        assertTrue(e != null, "no event " + name + " in " + events.keySet());
        return e;
    }

    @Test
    void theBackwardsCollectivesRunUnderTheWeightGradientsAndTheForwardsDoNot() throws IOException {
        Map<String, double[]> ev = events();
        for (String layer : new String[] {"L0", "L1"}) {
            for (String block : new String[] {"mlp", "attn"}) {
                String at = "B mb0 " + layer + " " + block;
                double[] dgrad = find(ev, at + " dgrad");
                double[] wgrad = find(ev, at + " wgrad");
                double[] rs = find(ev, "tp-rs " + at);
                assertEquals(dgrad[1], wgrad[0], 1e-3, at + ": the weight gradients do not wait for the reduction");
                assertEquals(dgrad[1], rs[0], 1e-3, at + ": the reduction starts as the input gradient ends");
                assertTrue(rs[0] < wgrad[1], at + ": the reduction runs under the weight gradients");
            }
            // the attention block's output-gradient gather follows the MLP's reduction, not its wgrad
            double[] mlpRs = find(ev, "tp-rs B mb0 " + layer + " mlp");
            double[] attnAg = find(ev, "tp-ag B mb0 " + layer + " attn");
            double[] mlpW = find(ev, "B mb0 " + layer + " mlp wgrad");
            assertEquals(mlpRs[1], attnAg[0], 1e-3, layer + ": gather right after the reduction");
            assertTrue(attnAg[0] < mlpW[1], layer + ": the gather starts under the MLP's wgrad");
            // forward: the attention block's reduce-scatter sits between its compute and the MLP's gather
            double[] fwdRs = find(ev, "tp-rs F mb0 " + layer + " attn");
            double[] fwdAg = find(ev, "tp-ag F mb0 " + layer + " mlp");
            double[] fwdMlp = find(ev, "F mb0 " + layer + " mlp");
            assertTrue(fwdRs[1] <= fwdAg[0] + 1e-3 && fwdAg[1] <= fwdMlp[0] + 1e-3,
                    layer + ": the forward's collectives are exposed, one after the other before the MLP");
        }
    }
}
