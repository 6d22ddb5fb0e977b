package org.clustersim.strategies.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;

import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.device.AttentionImpl;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.topology.TorusSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;

/**
 * The XLA memory picture against oracles written here from the byte counts MaxText's base.yml
 * states (fp32 weights, fp32 gradients, fp32 Adam moments, bf16 activations) and the tensors
 * each remat policy names, for Llama 3 8B (h 4096, 32 query and 8 KV heads of 128, SwiGLU
 * 14336, vocabulary 128,256, untied) on a v5e slice.
 */
class XlaMemoryTest {
    static final TransformerModel M = TransformerModel.LLAMA3_8B;
    static final Topology V5E = TorusSpec.v5e(16, 16).build();
    static final double H = 4096;
    static final double KV = 8 * 128;
    static final double FFN = 14336;
    static final double V = 128256;
    /** One layer: q and o (h x h), k and v (h x 1024), three MLP matrices, two norms. */
    static final double LAYER = 2 * H * H + 2 * H * KV + 3 * H * FFN + 2 * H;
    /** The model: 32 layers, the embedding and the output head (untied); the final norm left out (4096). */
    static final double PARAMS = 32 * LAYER + 2 * V * H;

    static LayoutBuilder fsdp(int tp, int fsdp, String policy) {
        return TrainingStep.builder(M, V5E).sizes(tp, 1, 1, fsdp).zero(3).sequenceParallel(tp > 1)
                .batch(1, 2 * tp, 2048).kernels(Precision.BF16, AttentionImpl.STANDARD)
                .recompute(LayerCostModel.Recompute.FULL).xlaRemat(XlaRemat.named(policy));
    }

    @Test
    void modelStatesAreMaxTextsFp32AdamShardedOverFsdpAndTensor() {
        for (int tp : new int[] {1, 4}) {
            TrainingStep step = fsdp(tp, 256 / tp, "full").build();
            MemoryModel.States s = new MemoryModel(step).states(0);
            double shard = PARAMS / 256;
            double delta = 16 * H; // the final norm, which the oracle leaves out
            assertEquals(8 * shard, s.optimizer(), delta, "two fp32 moments, tp " + tp);
            // fp32 weight shard plus the layer in use and the next, gathered in bf16 (tensor-split)
            assertEquals(4 * shard + 2 * 2 * LAYER / tp, s.weights(), delta * 4, "tp " + tp);
            // fp32 gradient shard plus one layer's unsharded bf16 weight gradients
            assertEquals(4 * shard + 2 * LAYER / tp, s.gradients(), delta * 4, "tp " + tp);
        }
    }

    @Test
    void withoutAMeshPolicyTheGpuPictureStays() {
        TrainingStep gpu = fsdp(1, 256, "full").xlaRemat(null).build();
        assertNull(gpu.numerics().xlaRemat());
        // Megatron-FSDP's: bf16 weights, fp32 main gradients, 12 bytes of Adam state, per parameter
        assertEquals(12 * PARAMS / 256, new MemoryModel(gpu).states(0).optimizer(), 12 * H);
    }

    @Test
    void theScanKeepsThePolicysNamedTensorsPerLayer() {
        double tokens = 2 * 2048;
        double q = 32 * 128;
        // query, key, value, out_proj, mlpwi_0/1: mlpwo feeds only the residual sum, whose
        // gradient reads no value, so jax.checkpoint never keeps it whatever the policy allows
        double dots = q + 2 * KV + H + 2 * FFN;
        double everyDot = dots + H;
        assertEquals(32 * 2 * tokens * H, activations("full"), 32);
        assertEquals(32 * 2 * tokens * H, activations("qkv_proj_offloaded"), 32, "q, k, v go to the host");
        assertEquals(32 * 2 * tokens * H, activations("minimal_offloaded"), 32, "every dot goes to the host");
        assertEquals(32 * 2 * tokens * (H + dots), activations("minimal"), 32);
        assertEquals(32 * 2 * tokens * (H + dots + q), activations("minimal_with_context"), 32);
        assertEquals(32 * 2 * tokens * (H + q + 2 * KV), activations("save_qkv_proj"), 32);
        assertEquals(32 * 2 * tokens * (H + q + 2 * KV + H), activations("save_dot_except_mlpwi"), 32);
        assertEquals(32 * 2 * tokens * (H + q + 2 * KV + H), activations("save_dot_except_mlp"), 32);
        assertEquals(32 * 2 * tokens * (H + q + 2 * KV + q + H), activations("save_dot_with_context_except_mlp"), 32);
        assertEquals(32 * 2 * tokens * (H + H), activations("save_out_proj"), 32);
        // without remat also the norms' outputs, the residual and the MLP's activation output
        assertEquals(32 * 2 * tokens * (H + everyDot + q + 3 * H + FFN), activations("none"), 32);
        // tensor parallelism splits every kept tensor (activation_embed, heads and mlp on tensor); the 4
        // chips of a tensor group share 8 sequences
        TrainingStep tp4 = fsdp(4, 64, "minimal").build();
        assertEquals(32 * 2 * (8 * 2048) * (H + dots) / 4, new MemoryModel(tp4).activationBytes(0), 32);
    }

    @Test
    void offloadedTensorsComeBackForTheBackwardOnly() {
        // two stages so rank 0 holds no logits and its workspace is the layer's backward working set
        TrainingStep kept = TrainingStep.builder(M, V5E).sizes(1, 1, 2, 128).zero(3).batch(2, 2, 2048)
                .kernels(Precision.BF16, AttentionImpl.STANDARD).xlaRemat(XlaRemat.named("save_qkv_proj")).build();
        TrainingStep offloaded = kept.toBuilder().xlaRemat(XlaRemat.named("qkv_proj_offloaded")).build();
        double tokens = 2 * 2048;
        double qkv = 2 * tokens * (32 * 128 + 2 * KV);
        double working = 2 * tokens * (6 * H + 32 * 128 + 2 * KV + 32 * 128 + 3 * FFN);
        assertEquals(working, new MemoryModel(kept).states(0).workspace(), 1);
        assertEquals(working + qkv, new MemoryModel(offloaded).states(0).workspace(), 1,
                "the next layer's q, k, v brought back beside the layer's working set");
        assertEquals(16 * qkv, new MemoryModel(kept).activationBytes(0) - new MemoryModel(offloaded).activationBytes(0),
                16, "16 layers a stage, q, k, v of each in host memory");
    }

    @Test
    void customPlacesEachTensorAndKeepsTheLayerInputUnlessOffloaded() {
        XlaRemat p = XlaRemat.custom(Set.of(XlaRemat.Tensor.OUT_PROJ), Set.of(XlaRemat.Tensor.DECODER_LAYER_INPUT,
                XlaRemat.Tensor.QUERY_PROJ));
        assertTrue(p.host().contains(XlaRemat.Tensor.DECODER_LAYER_INPUT));
        assertEquals(Set.of(XlaRemat.Tensor.OUT_PROJ), p.device());
        double tokens = 2 * 2048;
        TrainingStep step = fsdp(1, 256, "full").xlaRemat(p).build();
        assertEquals(32 * 2 * tokens * H, new MemoryModel(step).activationBytes(0), 32, "only out_proj in HBM");
        assertTrue(XlaRemat.custom(Set.of(), Set.of()).device().contains(XlaRemat.Tensor.DECODER_LAYER_INPUT));
    }

    private static long activations(String policy) {
        return new MemoryModel(fsdp(1, 256, policy).build()).activationBytes(0);
    }
}
