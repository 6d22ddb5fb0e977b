package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bundled Qwen3-30B-A3B layout on 16 H100 (2 servers, EP 8) shows each MoE layer's expert,
 * permutation and dispatch ops in the trace at the cost of their single-GPU sources: the expert
 * grouped GEMMs at our H200 torch._grouped_mm table (128 experts, hidden 2048, ffn 768;
 * docs/calibration/data/h200-kernels-2026-11-26.log), the permutation kernels as their bytes over
 * the profile's streaming rate (QuACK's 3.01 TB/s on H100), the host synchronisation of the
 * all-to-all dispatcher, and its count all-gather before the token all-to-all. Reduced to two
 * layers without pipeline stages so that it runs in seconds.
 */
class SmallExpertMoeScenarioTest {
    private static final String SCENARIO = "qwen3-30b-a3b-16xh100-pp2-ep8";
    private static final String REDUCED = "model.layers=2;parallelism.pp=1;parallelism.dp=16;schedule.kind=1f1b;"
            + "schedule.v=;training.globalBatch=16";
    /** h100-sxm: launch.gapUs and launch.hostUs; a kernel of t us occupies max(t + gap, host). */
    private static final double GAP_US = 1.17;
    private static final double HOST_US = 5.0;
    /** h100-sxm: memory.bandwidthTBps x streamEfficiency (QuACK's fp32 softmax, NCU: 3.01 TB/s). */
    private static final double STREAM = 3.35e12 * 0.8985;
    /** h100-sxm: host.syncUs. */
    private static final double SYNC_US = 20;
    /** One microbatch of one sequence: 4,096 tokens, each to 8 experts; hidden 2048 in bf16, fp32 probabilities. */
    private static final double ROUTED = 4096.0 * 8;
    private static final double ROW_BYTES = 2048 * 2 + 4;

    @TempDir
    Path dir;

    /** The first GPU's tasks of microbatch 0's first layer, by name. */
    private Map<String, JsonNode> layerTasks(String overrides, String tag) throws IOException {
        Path file = ScenarioOverrides.write(SCENARIO, REDUCED + overrides, dir.resolve(tag + ".yaml"));
        Path trace = dir.resolve(tag + ".json");
        ClusterSimTest.Result r = ClusterSimTest.cli("run", file.toString(), "--trace=" + trace, "--trace-format=json");
        assertEquals(0, r.code(), r.err());
        Map<String, JsonNode> out = new LinkedHashMap<>();
        for (JsonNode e : new ObjectMapper().readTree(trace.toFile()).get("traceEvents")) {
            String name = e.path("name").asText();
            if ("X".equals(e.path("ph").asText()) && e.path("pid").asInt() == 1 && (name + " ").contains("mb0 L0 ")) {
                out.putIfAbsent(name, e);
            }
        }
        return out;
    }

    private static double ops(Map<String, JsonNode> tasks, String task, String op) {
        JsonNode t = tasks.get(task);
        assertTrue(t != null, "no task " + task + " in " + tasks.keySet());
        JsonNode v = t.path("args").path("ops (us)").path(op);
        assertFalse(v.isMissingNode(), task + " has no op " + op + ": " + t.path("args"));
        return v.asDouble();
    }

    private static double memoryUs(double bytes, int kernels) {
        return kernels * Math.max(bytes / STREAM * 1e6 / kernels + GAP_US, HOST_US);
    }

    @Test
    void theAllToAllDispatchersOpsCostTheirBytesAndTheHostSync() throws IOException {
        Map<String, JsonNode> t = layerTasks("", "ep8");
        // router block: the host waits for the split sizes once per forward, never in the backward
        assertEquals(SYNC_US, ops(t, "F mb0 L0 router", "host sync"), 1e-6);
        assertTrue(t.get("B mb0 L0 router").path("args").path("ops (us)").path("host sync").asDouble(0) == 0);
        // moe_permute: every routed row (and its probability) read and written; 2 kernels
        assertEquals(memoryUs(2 * ROUTED * ROW_BYTES, 2), ops(t, "F mb0 L0 router", "permute"), 0.01);
        // sort_chunks_by_idxs over the 16 local experts' received rows, one fused kernel each way
        assertEquals(memoryUs(2 * ROUTED * ROW_BYTES, 1), ops(t, "F mb0 L0 experts", "sort chunks"), 0.01);
        assertEquals(memoryUs(2 * ROUTED * ROW_BYTES, 1), ops(t, "F mb0 L0 experts", "unsort chunks"), 0.01);
        assertEquals(memoryUs(2 * ROUTED * ROW_BYTES, 2), ops(t, "F mb0 L0 experts", "unpermute"), 0.01);
        // the counts all-gather, then the token all-to-all, on the EP stream
        JsonNode counts = t.get("ep-ag counts F mb0 L0 experts");
        JsonNode dispatch = t.get("ep-a2a dispatch F mb0 L0 experts");
        assertTrue(counts != null && dispatch != null, "EP tasks: " + t.keySet());
        assertTrue(counts.get("ts").asDouble() + counts.get("dur").asDouble() <= dispatch.get("ts").asDouble() + 1e-6);
        // the probabilities (fp32) follow the tokens in an all-to-all of their own
        JsonNode probs = t.get("ep-probs a2a F mb0 L0 experts");
        double dispatchEnd = dispatch.get("ts").asDouble() + dispatch.get("dur").asDouble();
        assertTrue(probs != null && probs.get("ts").asDouble() >= dispatchEnd - 1e-6,
                "probabilities' all-to-all after the tokens': " + t.keySet());
        assertTrue(t.containsKey("ep-probs-grad a2a B mb0 L0 experts"), t.keySet().toString());
        // 16 experts of 2,048 rows: near the Qwen3 table's fastest (128 x 1,024 rows, 696 TFLOP/s) and
        // the H100's GPT-OSS points at 16 x 2,048 rows (723-774 at n, k of 2,880-5,760; the surface
        // interpolates to ~680 at this smaller n, k), never beyond MAMF's best dense rate (794.5), both
        // at the sustained clock (0.87)
        double fc1 = 2 * ROUTED * 1536 * 2048 / (ops(t, "F mb0 L0 experts", "experts fc1") * 1e-6) / 1e12;
        assertTrue(fc1 > 0.95 * 0.87 * 696.1 && fc1 < 0.87 * 794.5, "fc1 at 16 x 2048 rows: " + fc1 + " TFLOP/s");
    }

    /**
     * Without expert parallelism every GPU holds all 128 experts and each sees 4,096 x 8 / 128 =
     * 256 tokens: the measured table's own shape (fc1 585.7, fc2 464.2 TFLOP/s).
     */
    @Test
    void allExpertsOnOneGpuRunAtTheMeasuredGroupedRates() throws IOException {
        Map<String, JsonNode> t = layerTasks(";parallelism.ep=1", "ep1");
        // the profile's surface at the measured clock reproduces the measured (short-burst) rates
        org.clustersim.strategies.device.DeviceProfile h100 = org.clustersim.strategies.device.DeviceProfiles
                .bundled("h100-sxm");
        org.clustersim.strategies.device.GemmSurface bf16 = h100.bf16Gemm();
        assertEquals(2 * 128 * 256.0 * 1536 * 2048 / 585.7e12 * 1e9, bf16.groupedNs(128, 256, 1536, 2048), 0.005
                * bf16.groupedNs(128, 256, 1536, 2048));
        assertEquals(2 * 128 * 256.0 * 2048 * 768 / 464.2e12 * 1e9, bf16.groupedNs(128, 256, 2048, 768), 0.005
                * bf16.groupedNs(128, 256, 2048, 768));
        // a step runs them at the clock sustained under the power limit (profile power section)
        double f = h100.power().sustainedComputeFraction();
        double fc1Us = bf16.atClock(f).groupedNs(128, 256, 1536, 2048) / 1e3 + GAP_US;
        double fc2Us = bf16.atClock(f).groupedNs(128, 256, 2048, 768) / 1e3 + GAP_US;
        assertTrue(fc1Us > 2 * 128 * 256.0 * 1536 * 2048 / 585.7e12 * 1e6, "slower than the burst measurement");
        // without an exchange the layer's blocks run as one task
        assertEquals(fc1Us, ops(t, "F mb0 L0", "experts fc1"), 0.005 * fc1Us);
        assertEquals(fc2Us, ops(t, "F mb0 L0", "experts fc2"), 0.005 * fc2Us);
        // no token exchange, but the host still reads the counts back (cuda_sync_point before_finish)
        assertFalse(t.keySet().stream().anyMatch(n -> n.startsWith("ep-")), t.keySet().toString());
        assertEquals(SYNC_US, ops(t, "F mb0 L0", "host sync"), 1e-6);
    }

    @Test
    void theFlexDispatchersMoveThePermutation() throws IOException {
        Map<String, JsonNode> deepep = layerTasks(";parallelism.moeDispatcher=deepep", "deepep");
        // DeepEP: no count all-gather or probabilities' all-to-all, no chunk sort; the received
        // rows permuted after the exchange
        assertFalse(deepep.containsKey("ep-ag counts F mb0 L0 experts"), deepep.keySet().toString());
        assertFalse(deepep.containsKey("ep-probs a2a F mb0 L0 experts"), deepep.keySet().toString());
        assertEquals(memoryUs(2 * ROUTED * ROW_BYTES, 2), ops(deepep, "F mb0 L0 experts", "permute"), 0.01);
        assertTrue(deepep.get("F mb0 L0 experts").path("args").path("ops (us)").path("sort chunks").isMissingNode());
        assertTrue(deepep.get("F mb0 L0 router").path("args").path("ops (us)").path("permute").isMissingNode());
        // HybridEP: the permutation inside its kernels
        Map<String, JsonNode> hybrid = layerTasks(";parallelism.moeDispatcher=hybridep", "hybridep");
        JsonNode experts = hybrid.get("F mb0 L0 experts").path("args").path("ops (us)");
        JsonNode router = hybrid.get("F mb0 L0 router").path("args").path("ops (us)");
        assertTrue(experts.path("unpermute").isMissingNode() && router.path("permute").isMissingNode(),
                router + " " + experts);
        assertEquals(SYNC_US, router.path("host sync").asDouble(), 1e-6);
    }
}
