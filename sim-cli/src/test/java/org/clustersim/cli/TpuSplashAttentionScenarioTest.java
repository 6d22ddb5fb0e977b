package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bundled Llama-3-8B step of 8K-token sequences on a v6e-256 slice (MaxText's Trillium recipe,
 * {@code attention: flash}) runs its attention core as the Pallas splash kernel at the rate the
 * v6e profile measured for it (tokamax's v6e autotuning cache: causal, head dim 128, 8,192 tokens,
 * 194 TFLOP/s forward; backward 241 TFLOP/s derived from tpu7x's backward/forward ratio), read
 * from the trace's per-op times of one layer. Reduced to two layers so that it runs in seconds.
 */
class TpuSplashAttentionScenarioTest {
    private static final String SCENARIO = "llama3-8b-tpu-v6e-256-8k";
    /** The v6e profile's splash table at 8,192 tokens, d 128, causal (tpu-v6e.yaml), FLOP/s. */
    private static final double FORWARD_RATE = 194e12;
    private static final double BACKWARD_RATE = 241e12;
    /** One XLA op's launch gap on the TPU profiles (launch.gapUs), us. */
    private static final double GAP_US = 0.5;

    @TempDir
    Path dir;

    private JsonNode firstLayerOps(String attention, String pass) throws IOException {
        Path file = ScenarioOverrides.write(SCENARIO, "model.layers=2;model.attention=" + attention,
                dir.resolve(attention + ".yaml"));
        Path trace = dir.resolve(attention + ".json");
        ClusterSimTest.Result r = ClusterSimTest.cli("run", file.toString(), "--trace=" + trace,
                "--trace-format=json");
        assertEquals(0, r.code(), r.err());
        for (JsonNode e : new ObjectMapper().readTree(trace.toFile()).get("traceEvents")) {
            if ("X".equals(e.path("ph").asText()) && e.path("pid").asInt() == 1
                    && (pass + " mb0 L0").equals(e.path("name").asText())) {
                return e.get("args").get("ops (us)");
            }
        }
        throw new AssertionError("no " + pass + " mb0 L0 task on the first chip");
    }

    @Test
    void theAttentionCoreRunsAtTheSplashTablesRate() throws IOException {
        // FlashAttention's convention: 4 b s^2 heads d, halved by the causal mask; per chip
        // b = 4 sequences of s = 8192 (FSDP keeps every head on the chip), 32 query heads of d = 128
        double b = 4;
        double s = 8192;
        double forwardFlops = 4 * b * s * s * 32 * 128 / 2;
        double forwardUs = forwardFlops / FORWARD_RATE * 1e6 + GAP_US;
        double backwardUs = 2.5 * forwardFlops / BACKWARD_RATE * 1e6 + 3 * GAP_US;
        JsonNode forward = firstLayerOps("flash", "F");
        JsonNode backward = firstLayerOps("flash", "B");
        assertEquals(forwardUs, forward.get("attn core").asDouble(), 0.01,
                "forward splash: " + forward);
        assertEquals(backwardUs, backward.get("attn core").asDouble(), 0.01,
                "backward splash: " + backward);
        // the materialised score matrix (what `flash` ran as before the TPU profiles had a fused
        // table) is much slower at 8K tokens: its element-wise passes stream b heads s^2 scores
        JsonNode standard = firstLayerOps("standard", "F");
        assertTrue(standard.get("attn core").asDouble() > 2 * forward.get("attn core").asDouble(),
                "standard " + standard.get("attn core") + " us vs splash " + forward.get("attn core") + " us");
    }
}
