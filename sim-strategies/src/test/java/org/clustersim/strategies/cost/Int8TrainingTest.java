package org.clustersim.strategies.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.clustersim.strategies.device.AttentionImpl;
import org.clustersim.strategies.device.DeviceProfile;
import org.clustersim.strategies.device.DeviceProfiles;
import org.clustersim.strategies.model.TransformerModel;
import org.junit.jupiter.api.Test;

/** MaxText's AQT int8 training on TPU MXUs, and fp8 on tpu7x. */
class Int8TrainingTest {
    static final DeviceProfile V5E = DeviceProfiles.bundled("tpu-v5e");
    static final TransformerModel LLAMA = TransformerModel.LLAMA3_8B;

    static LayerCostModel model(DeviceProfile device, Precision p) {
        return new LayerCostModel(LLAMA, new KernelCosts(device, p, Fp8Recipe.DELAYED, AttentionImpl.STANDARD, true,
                false, 4), 1, false, 1, 2048, LayerCostModel.Recompute.NONE, 1, 1);
    }

    static double total(LayerCostModel.Block b) {
        return b.fNs() + b.biNs() + b.wNs();
    }

    @Test
    void int8GemmsRunAtTheInt8SurfaceAndTheRestStaysBf16() {
        Map<String, LayerCostModel.OpTime> bf16 = LayerCostModelTest.ops(model(V5E, Precision.BF16).mlpBlock());
        Map<String, LayerCostModel.OpTime> int8 = LayerCostModelTest.ops(model(V5E, Precision.INT8).mlpBlock());
        double rows = 2048;
        double h = LLAMA.hidden();
        double f = LLAMA.ffn();
        // fc2 (rows x f) by (f x h): forward, input gradient and weight gradient all on the int8 MXU surface
        assertEquals(V5E.launch().ns(V5E.int8Gemm().ns(rows, h, f), 1), int8.get("fc2").fNs(), 1e-6);
        assertEquals(V5E.launch().ns(V5E.int8Gemm().ns(rows, f, h), 1), int8.get("fc2").biNs(), 1e-6);
        assertEquals(V5E.launch().ns(V5E.int8Gemm().ns(f, h, rows), 1), int8.get("fc2").wNs(), 1e-6);
        assertTrue(int8.get("fc2").fNs() < bf16.get("fc2").fNs(), "int8 MXUs are faster than bf16 ones");
        assertEquals(bf16.get("act").fNs(), int8.get("act").fNs(), 1e-9, "the activation stays bf16");
        assertTrue(int8.get("int8 quantise").fNs() > 0 && int8.get("int8 quantise").biNs() > 0,
                "each operand is quantised by a pass of its own, forward and backward");
        Map<String, LayerCostModel.OpTime> bf16Attn = LayerCostModelTest.ops(model(V5E, Precision.BF16)
                .attentionBlock(0));
        Map<String, LayerCostModel.OpTime> int8Attn = LayerCostModelTest.ops(model(V5E, Precision.INT8)
                .attentionBlock(0));
        assertEquals(bf16Attn.get("attn core").fNs(), int8Attn.get("attn core").fNs(), 1e-9, "attention stays bf16");
        assertEquals(total(model(V5E, Precision.BF16).logits()), total(model(V5E, Precision.INT8).logits()), 1e-9,
                "MaxText does not quantise the logits matmul");
    }

    @Test
    void anInt8LayerIsFasterThanBf16ByLessThanTheMxuRatio() {
        LayerCostModel bf16 = model(V5E, Precision.BF16);
        LayerCostModel int8 = model(V5E, Precision.INT8);
        double b = total(bf16.attentionBlock(0)) + total(bf16.mlpBlock());
        double i = total(int8.attentionBlock(0)) + total(int8.mlpBlock());
        double mxu = V5E.int8Gemm().peakFlops() / V5E.bf16Gemm().peakFlops();
        assertEquals(2.0, mxu, 0.01, "v5e: 394 int8 TOP/s against 197 bf16 TFLOP/s");
        assertTrue(b / i > 1.1 && b / i < mxu, "layer speed-up " + b / i + ": the attention core, norms and the "
                + "quantisation passes do not speed up");
    }

    @Test
    void tpuV4HasInt8AtItsBf16RateSoInt8OnlyAddsQuantisation() {
        DeviceProfile v4 = DeviceProfiles.bundled("tpu-v4");
        assertEquals(v4.bf16Flops(), v4.int8Gemm().peakFlops(), 0, "Google Cloud's v4 page: 275 bf16 or int8");
        assertTrue(total(model(v4, Precision.INT8).mlpBlock()) > total(model(v4, Precision.BF16).mlpBlock()));
    }

    @Test
    void chipsWithoutInt8MxusHaveNoInt8Surface() {
        for (String gpu : new String[] {"h100-sxm", "b200", "tpu-7x"}) {
            DeviceProfile d = DeviceProfiles.bundled(gpu);
            assertNull(d.int8Gemm(), gpu);
            assertEquals(0, d.accelerator().int8Flops(), 0, gpu);
            assertThrows(IllegalArgumentException.class, () -> KernelCosts.of(d, Precision.INT8), gpu);
        }
        for (String tpu : new String[] {"tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e"}) {
            assertNull(DeviceProfiles.bundled(tpu).fp8Gemm(), tpu + " lists no fp8 rate above bf16");
        }
        for (String tpu : new String[] {"tpu-v5e", "tpu-v5p", "tpu-v6e"}) {
            assertEquals(2 * DeviceProfiles.bundled(tpu).bf16Flops(),
                    DeviceProfiles.bundled(tpu).accelerator().int8Flops(), 1e9, tpu + ": int8 MXUs at twice bf16");
        }
    }

    @Test
    void tpu7xIsOneChipletHalfTheChipWithFp8() {
        DeviceProfile d = DeviceProfiles.bundled("tpu-7x");
        assertEquals(2307e12 / 2, d.bf16Flops(), 1e6, "half the chip's 2307 TFLOP/s bf16");
        assertEquals(4614e12 / 2, d.fp8Flops(), 1e6, "half the chip's 4614 fp8");
        assertEquals(192L << 29, d.hbmBytes(), "half of 192 GiB");
        assertEquals(7380e9 / 2, d.hbmBytesPerS(), 1e3);
        LayerCostModel bf16 = model(d, Precision.BF16);
        LayerCostModel fp8 = model(d, Precision.FP8);
        double speedup = (total(bf16.attentionBlock(0)) + total(bf16.mlpBlock()))
                / (total(fp8.attentionBlock(0)) + total(fp8.mlpBlock()));
        assertTrue(speedup > 1 && speedup < 2, "fp8 speeds up the GEMMs only: " + speedup);
    }
}
