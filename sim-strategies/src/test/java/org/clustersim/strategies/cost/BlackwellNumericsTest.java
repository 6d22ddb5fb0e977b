package org.clustersim.strategies.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.stream.Collectors;

import org.clustersim.strategies.device.AttentionImpl;
import org.clustersim.strategies.device.DeviceProfile;
import org.clustersim.strategies.device.DeviceProfiles;
import org.clustersim.strategies.device.Op;
import org.clustersim.strategies.model.TransformerModel;
import org.junit.jupiter.api.Test;

/**
 * MXFP8 and NVFP4 as Transformer Engine runs them: which operands each recipe casts by a kernel
 * of its own, with how many bytes, at which GEMM surface the GEMMs run, and what a layer keeps
 * for its backward. The expected casts are counted here from the tensors' shapes (Llama 3 8B's
 * MLP: h 4096, ffn 14336, SwiGLU) and the bytes each recipe writes per element.
 */
class BlackwellNumericsTest {
    static final DeviceProfile B200 = DeviceProfiles.bundled("b200");
    static final TransformerModel LLAMA = TransformerModel.LLAMA3_8B;
    static final double T = 8192; // tokens of one microbatch, b 1 x s 8192, no TP

    static KernelCosts costs(Precision p, Fp8Recipe recipe) {
        return new KernelCosts(B200, p, recipe, AttentionImpl.CUDNN, true, false, 4);
    }

    static LayerCostModel model(Precision p, Fp8Recipe recipe) {
        return new LayerCostModel(LLAMA, costs(p, recipe), 1, false, 1, (int) T, LayerCostModel.Recompute.NONE, 1, 1);
    }

    static Map<String, LayerCostModel.OpTime> ops(LayerCostModel.Block b) {
        return b.ops().stream().collect(Collectors.toMap(LayerCostModel.OpTime::op, t -> t));
    }

    /** One memory-bound kernel of a cast moving {@code bytes}, as the profile times it. */
    static double kernel(double bytes) {
        return B200.launch().ns(bytes / B200.streamBytesPerS() * 1e9, B200.kernels().forward(Op.FP8_CAST));
    }

    @Test
    void mxfp8CastsTheNormOutputsAndTheUnfusedGradientsWithBothCopiesAndTheirScales() {
        double h = LLAMA.hidden();
        double f = LLAMA.ffn();
        Map<String, LayerCostModel.OpTime> mlp = ops(model(Precision.FP8, Fp8Recipe.MXFP8).mlpBlock());
        // F: fc1's input comes from the norm, which does not write MXFP8 (TE's default norm path);
        // fc2's input from the activation, which does. Bi: fc2's output gradient comes from the
        // residual branch; fc1's from the activation's backward, which writes MXFP8.
        // Per element: bf16 read (2), row-wise and column-wise fp8 (1 + 1), an E8M0 byte per 32 each.
        double perElement = 2 + 1 + 1 + 2.0 / 32;
        assertEquals(kernel(T * h * perElement), mlp.get("mxfp8 cast").fNs(), 1e-6);
        assertEquals(kernel(T * h * perElement), mlp.get("mxfp8 cast").biNs(), 1e-6);
        assertFalse(mlp.containsKey("fp8 cast"), "the trace names the MXFP8 casts as such");
        // delayed scaling fuses both MLP inputs; MXFP8 only the activation's: its F casts are fc1's input
        Map<String, LayerCostModel.OpTime> delayed = ops(model(Precision.FP8, Fp8Recipe.DELAYED).mlpBlock());
        assertEquals(0, delayed.get("fp8 cast").fNs(), 0);
        // the attention block: QKV's input (norm) and proj's input (attention output), h wide each
        Map<String, LayerCostModel.OpTime> attn = ops(model(Precision.FP8, Fp8Recipe.MXFP8).attentionBlock(0));
        assertEquals(2 * kernel(T * h * perElement), attn.get("mxfp8 cast").fNs(), 1e-6);
        // Bi: QKV's output gradient (q, k, v: 4096 + 2 x 1024 wide) and proj's (h)
        double qkv = LLAMA.qkvWidth();
        assertEquals(kernel(T * qkv * perElement) + kernel(T * h * perElement), attn.get("mxfp8 cast").biNs(), 1e-6);
        assertTrue(f > h);
    }

    @Test
    void nvfp4CastsEveryOperandAfterAHadamardAmaxPass() {
        double h = LLAMA.hidden();
        double f = LLAMA.ffn();
        Map<String, LayerCostModel.OpTime> mlp = ops(model(Precision.NVFP4, Fp8Recipe.DELAYED).mlpBlock());
        // nothing fuses under NVFP4 with the Hadamard transform: fc1's input (h), fc2's (f) in F;
        // fc2's output gradient (h), fc1's (gate and up, 2f) in Bi
        double amax = 2;                          // the bf16 tensor read once
        double cast = 2 + 2 * (0.5 + 1.0 / 16);   // read, row-wise and column-wise E2M1 + E4M3 scale per 16
        assertEquals(kernel(T * h * amax) + kernel(T * f * amax), mlp.get("hadamard amax").fNs(), 1e-6);
        assertEquals(kernel(T * h * cast) + kernel(T * f * cast), mlp.get("nvfp4 cast").fNs(), 1e-6);
        assertEquals(kernel(T * h * amax) + kernel(T * 2 * f * amax), mlp.get("hadamard amax").biNs(), 1e-6);
        assertEquals(kernel(T * h * cast) + kernel(T * 2 * f * cast), mlp.get("nvfp4 cast").biNs(), 1e-6);
        assertEquals(0, mlp.get("nvfp4 cast").wNs(), 0, "the weight gradient reads the copies the casts wrote");
    }

    @Test
    void gemmsRunAtTheirRecipesSurfaceAndEverythingElseStaysBf16() {
        assertSame(B200.mxfp8Gemm(), costs(Precision.FP8, Fp8Recipe.MXFP8).surface());
        assertSame(B200.fp8Gemm(), costs(Precision.FP8, Fp8Recipe.CURRENT).surface());
        assertSame(B200.nvfp4Gemm(), costs(Precision.NVFP4, Fp8Recipe.DELAYED).surface());
        Map<String, LayerCostModel.OpTime> bf16 = ops(model(Precision.BF16, Fp8Recipe.DELAYED).mlpBlock());
        Map<String, LayerCostModel.OpTime> mx = ops(model(Precision.FP8, Fp8Recipe.MXFP8).mlpBlock());
        Map<String, LayerCostModel.OpTime> fp4 = ops(model(Precision.NVFP4, Fp8Recipe.DELAYED).mlpBlock());
        for (String gemm : new String[] {"fc1", "fc2"}) {
            LayerCostModel.OpTime b = bf16.get(gemm);
            LayerCostModel.OpTime m = mx.get(gemm);
            LayerCostModel.OpTime n = fp4.get(gemm);
            for (double[] t : new double[][] {{b.fNs(), m.fNs(), n.fNs()}, {b.biNs(), m.biNs(), n.biNs()},
                    {b.wNs(), m.wNs(), n.wNs()}}) {
                assertTrue(t[2] < t[1] && t[1] < t[0], gemm + ": nvfp4 < mxfp8 < bf16 in every pass " + t[0] + " "
                        + t[1] + " " + t[2]);
            }
        }
        assertEquals(bf16.get("act").fNs(), fp4.get("act").fNs(), 1e-9, "the activation stays bf16");
        Map<String, LayerCostModel.OpTime> bAttn = ops(model(Precision.BF16, Fp8Recipe.DELAYED).attentionBlock(0));
        Map<String, LayerCostModel.OpTime> nAttn = ops(model(Precision.NVFP4, Fp8Recipe.DELAYED).attentionBlock(0));
        assertEquals(bAttn.get("attn core").fNs(), nAttn.get("attn core").fNs(), 1e-9, "attention stays bf16");
        assertEquals(model(Precision.BF16, Fp8Recipe.DELAYED).logits().fNs(),
                model(Precision.NVFP4, Fp8Recipe.DELAYED).logits().fNs(), 1e-9, "the logits stay bf16");
        // a layer the recipe keeps in bf16 is the bf16 layer
        LayerCostModel kept = model(Precision.NVFP4, Fp8Recipe.DELAYED).inBf16();
        assertEquals(model(Precision.BF16, Fp8Recipe.DELAYED).mlpBlock().fNs(), kept.mlpBlock().fNs(), 1e-9);
    }

    @Test
    void weightsAreGatheredAsEachRecipeKeepsThem() {
        assertEquals(2, costs(Precision.FP8, Fp8Recipe.CURRENT).weightGatherBytes(), 0, "without fp8ParamGather");
        KernelCosts current = new KernelCosts(B200, Precision.FP8, Fp8Recipe.CURRENT, AttentionImpl.CUDNN, true, true, 4);
        assertEquals(1, current.weightGatherBytes(), 0);
        // MXFP8 through the gradient buffer: the main-gradient type
        for (int g : new int[] {2, 4}) {
            KernelCosts mx = new KernelCosts(B200, Precision.FP8, Fp8Recipe.MXFP8, AttentionImpl.CUDNN, true, true, g);
            assertEquals(g, mx.weightGatherBytes(), 0);
        }
        KernelCosts fp4 = new KernelCosts(B200, Precision.NVFP4, Fp8Recipe.DELAYED, AttentionImpl.CUDNN, true, true, 4);
        assertEquals(0.5, fp4.weightGatherBytes(), 0);
    }

    @Test
    void nvfp4NeedsAnNvfp4Surface() {
        DeviceProfile h100 = DeviceProfiles.bundled("h100-sxm");
        assertThrows(IllegalArgumentException.class, () -> new KernelCosts(h100, Precision.NVFP4, Fp8Recipe.DELAYED,
                AttentionImpl.CUDNN, true, false, 4));
        assertEquals(0, Precision.NVFP4.peak(h100.accelerator()), 0);
        assertEquals(9000e12, Precision.NVFP4.peak(B200.accelerator()), 1e6);
    }
}
