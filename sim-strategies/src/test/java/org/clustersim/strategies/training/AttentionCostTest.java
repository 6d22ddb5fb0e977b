package org.clustersim.strategies.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Work;
import org.clustersim.strategies.cost.KernelCosts;
import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.device.AttentionImpl;
import org.clustersim.strategies.device.AttentionPass;
import org.clustersim.strategies.device.DeviceProfiles;
import org.clustersim.strategies.model.AttentionShape;
import org.clustersim.strategies.model.LatentAttention;
import org.clustersim.strategies.model.PositionEmbedding;
import org.clustersim.strategies.model.SlidingWindow;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;

/** The attention shapes in the cost model, memory and tensor-parallel exchanges. */
class AttentionCostTest {
    static final KernelCosts H100 = KernelCosts.of(DeviceProfiles.bundled("h100-sxm"), Precision.BF16);
    static final TransformerModel OSS = TransformerModel.GPT_OSS_120B;

    static LayerCostModel cost(TransformerModel m, int tp, boolean sp, int seqLen) {
        return new LayerCostModel(m, H100, tp, sp, 1, seqLen, LayerCostModel.Recompute.NONE, 1, 1);
    }

    static double opNs(LayerCostModel.Block b, String op) {
        return b.ops().stream().filter(t -> t.op().equals(op)).mapToDouble(t -> t.fNs() + t.biNs() + t.wNs()).sum();
    }

    static List<String> ops(LayerCostModel.Block b) {
        return b.ops().stream().map(LayerCostModel.OpTime::op).toList();
    }

    @Test
    void windowedCoreCostsFarLessThanAFullOneAt4096() {
        LayerCostModel c = cost(OSS, 1, false, 4096);
        LayerCostModel.Block windowed = c.attentionCore(0);
        LayerCostModel.Block full = c.attentionCore(1);
        assertTrue(windowed.fNs() < 0.15 * full.fNs(), windowed.fNs() + " vs " + full.fNs());
        assertTrue(windowed.biNs() < 0.15 * full.biNs(), windowed.biNs() + " vs " + full.biNs());
    }

    @Test
    void longSequencesPayTwoWOverSOfTheFullCoreAtTheWindowsRate() {
        int s = 65536;
        LayerCostModel c = cost(OSS, 1, false, s);
        LayerCostModel.Block windowed = c.attentionCore(0);
        LayerCostModel.Block full = c.attentionCore(1);
        // causal: s^2 / 2 pairs in full, about s W in the window: 2 W / s of the work
        assertEquals(2.0 * 128 / s, windowed.fFlops() / full.fFlops(), 0.01 * 2 * 128 / s);
        // 64 heads, d 64, the FlashAttention convention's 4 d per pair, read like a causal kernel at 2W
        double flops = 4.0 * 64 * 64 * (s * 128.0 - 128.0 * 128 / 2);
        assertEquals(flops, windowed.fFlops(), 1e3);
        assertEquals(H100.attention(AttentionPass.FORWARD, flops, 64, true, 256), windowed.fNs(), 1e-6 * windowed.fNs());
    }

    @Test
    void learnedPositionsHaveNoRotaryOp() {
        List<String> gpt = ops(cost(TransformerModel.GPT3_1_3B, 1, false, 2048).attentionBlock(0));
        List<String> llama = ops(cost(TransformerModel.LLAMA3_8B, 1, false, 2048).attentionBlock(0));
        assertFalse(gpt.contains("rope"), gpt.toString());
        assertTrue(llama.contains("rope"), llama.toString());
    }

    @Test
    void gptOssProjectionsUseTheQueryWidthNotTheHidden() {
        LayerCostModel.Block b = cost(OSS, 1, false, 4096).attentionBlock(1);
        LayerCostModel.Block core = cost(OSS, 1, false, 4096).attentionCore(1);
        // QKV 2880 -> (64 + 16) x 64 and output 4096 -> 2880, per token, 2 FLOPs per weight
        double matmuls = 2.0 * 4096 * (2880.0 * 5120 + 4096.0 * 2880);
        assertEquals(matmuls, b.fFlops() - core.fFlops(), 1e3);
    }

    /** A 4-layer model with DeepSeek-V3's latent attention on h 7168 and a small dense MLP. */
    static final TransformerModel MLA = new TransformerModel("mla", 4, 7168, 128, 128, 2048,
            TransformerModel.FfnKind.SWIGLU, 32000, false, null, AttentionShape.latent(LatentAttention.DEEPSEEK_V3));

    @Test
    void latentProjectionsAreGemmsWithTheDownProjectionsReplicatedOverTp() {
        int s = 4096;
        double down = 7168.0 * (1536 + 576);
        double split = 1536.0 * 128 * 192 + 512.0 * 128 * 256 + 128.0 * 128 * 7168;
        LayerCostModel one = cost(MLA, 1, false, s);
        double core = one.attentionCore(0).fFlops();
        assertEquals(2.0 * s * (down + split), one.attentionBlock(0).fFlops() - core, 1e3);
        assertTrue(ops(one.attentionBlock(0)).containsAll(List.of("q down", "kv down", "latent norm", "q up",
                "kv up", "rope", "proj")));
        // TP 2 without SP: each rank runs the down-projections over every token, half the rest
        LayerCostModel two = cost(MLA, 2, false, s);
        assertEquals(2.0 * s * (down + split / 2), two.attentionBlock(0).fFlops() - core / 2, 1e3);
        // with SP: the down-projections over the rank's half of the tokens
        LayerCostModel twoSp = cost(MLA, 2, true, s);
        assertEquals(2.0 * s * (down + split) / 2, twoSp.attentionBlock(0).fFlops() - core / 2, 1e3);
    }

    static TrainingStep step(TransformerModel m, int tp, boolean sp, AttentionImpl attention) {
        Topology node = SwitchedClusterSpec.dgxH100(1).build();
        return TrainingStep.builder(m, node).sizes(tp, 1, 1, 1).sequenceParallel(sp).batch(1, 1, 4096)
                .kernels(Precision.BF16, attention).build();
    }

    /** Bytes of the communication tasks whose names start with {@code prefix} and contain {@code part}. */
    static List<Long> bytes(TaskGraph g, String prefix, String part) {
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < g.taskCount(); i++) {
            String n = g.task(i).name();
            if (n.startsWith(prefix) && n.contains(part) && g.task(i).work() instanceof Work.Communication c) {
                out.add(c.bytes());
            }
        }
        return out;
    }

    @Test
    void sequenceParallelGathersTheLatentsNotTheHiddenStates() {
        TaskGraph g = step(MLA, 2, true, AttentionImpl.CUDNN).build().graph();
        long mlp = bytes(g, "tp-ag", "mlp").get(0);
        List<Long> attention = bytes(g, "tp-ag", "attn");
        // forward: q_lora + kv_lora + rope = 2112 of 7168 per token; backward: the output gradient, h wide
        assertTrue(attention.contains(Math.round(mlp * 2112.0 / 7168)), attention + " vs mlp " + mlp);
        assertTrue(attention.contains(mlp), attention + " vs mlp " + mlp);
    }

    @Test
    void groupedQueryHeadsKeepSmallerKeysAndValues() {
        int heads = 16;
        int h = 2048;
        TransformerModel mha = new TransformerModel("mha", 2, h, heads, heads, 8192, TransformerModel.FfnKind.GELU,
                32000, false);
        TransformerModel gqa = new TransformerModel("gqa", 2, h, heads, 4, 8192, TransformerModel.FfnKind.GELU,
                32000, false);
        long a = new MemoryModel(step(mha, 1, false, AttentionImpl.CUDNN)).activationBytes(0);
        long b = new MemoryModel(step(gqa, 1, false, AttentionImpl.CUDNN)).activationBytes(0);
        // 4 of 16 KV heads: keys and values of 3/4 h fewer per token, 2 bytes each, 2 layers
        assertEquals(2 * 2 * 2 * 4096.0 * 0.75 * h, a - b, 2);
    }

    @Test
    void aWindowedModelsStepExecutesOnlyItsWindowsWork() {
        SlidingWindow w = new SlidingWindow(128, 2, 0);
        TransformerModel full = new TransformerModel("full", 4, 2880, 64, 8, 2880, TransformerModel.FfnKind.SWIGLU,
                32000, false, null, new AttentionShape(64, PositionEmbedding.ROTARY, null, null));
        TransformerModel windowed = new TransformerModel("windowed", 4, 2880, 64, 8, 2880,
                TransformerModel.FfnKind.SWIGLU, 32000, false, null, new AttentionShape(64, PositionEmbedding.ROTARY,
                w, null));
        double a = stepFlops(step(full, 1, false, AttentionImpl.CUDNN));
        double b = stepFlops(step(windowed, 1, false, AttentionImpl.CUDNN));
        // layers 0 and 2 compute s W - W^2 / 2 pairs instead of s^2 / 2, 4 x 64 x 64 FLOPs each in
        // the forward and twice that in the backward
        double s = 4096;
        double saved = 2 * 3 * 4.0 * 64 * 64 * (s * s / 2 - (s * 128 - 128.0 * 128 / 2));
        assertEquals(saved, a - b, 1e-9 * a);
    }

    static double stepFlops(TrainingStep s) {
        TaskGraph g = s.build().graph();
        double sum = 0;
        for (int i = 0; i < g.taskCount(); i++) {
            if (g.task(i).work() instanceof Work.Compute c) {
                sum += c.flops();
            }
        }
        return sum;
    }
}
