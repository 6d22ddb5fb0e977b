package org.clustersim.strategies.training;

import java.util.Set;

import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.cost.RecomputeModule;
import org.clustersim.strategies.device.AttentionImpl;
import org.clustersim.strategies.model.LatentAttention;
import org.clustersim.strategies.model.TransformerModel;

/**
 * Bytes one GPU holds for a training step: model states, workspace and activations.
 *
 * <p>Model states with mixed-precision Adam (Rajbhandari et al., ZeRO, 2020): 2 bytes of
 * weights, g of main gradients (4 in fp32, Megatron-LM's rule for bf16 training, making 18 bytes
 * a parameter; 2 in bf16 or fp16, the ZeRO paper's 16) and 12 of optimizer state (fp32 master
 * weights and two moments) per parameter, 8 with Megatron-core's precision-aware optimizer keeping
 * the moments in bf16 ({@link org.clustersim.strategies.cost.KernelCosts#optimizerStateBytes}); ZeRO 1 shards the optimizer state over the ranks holding the same weights (the
 * shard group under hybrid sharding; for expert weights, the expert data-parallel group of
 * {@link ExpertMesh}: expert states are 1 / (ep x etp) of the experts per GPU, sharded over edp),
 * ZeRO 2 the gradients too, ZeRO 3 the weights as well (plus the weights it holds gathered and
 * its unsharded gradient buffers, as the framework running it does: {@link ShardedMemory}).
 *
 * <p>Workspace: a fixed reserve for the CUDA context, cuBLAS workspaces, NCCL buffers and
 * allocator slack ({@link #FRAMEWORK_RESERVE}), and on the last stage the fp32 logits and their
 * gradient, which exist only while the loss is computed.
 *
 * <p>Activations per layer and microbatch (Korthikanti et al., "Reducing Activation
 * Recomputation in Large Transformer Models", 2022): 34 s b h + 5 a s^2 b bytes without
 * parallelism; with tensor parallelism 10 s b h + (24 s b h + 5 a s^2 b) / t, all of it over t
 * with sequence parallelism; fused attention keeps no score matrix (the 5 a s^2 b term goes);
 * selective recomputation drops that term too (module {@code core_attn}, Megatron-core's default);
 * the other modules of {@link RecomputeModule} drop what their checkpoints discard:
 * {@code mla_up_proj} the queries, keys and values, {@code mlp} a dense layer's whole MLP share
 * (19 s b h), {@code layernorm} both norms' outputs (4 s b h), {@code moe_act} the routed
 * experts' activation outputs, {@code shared_experts} the shared experts' intermediates; full recomputation keeps only each layer's
 * input, 2 s b h (over t with sequence parallelism). Of the 24 s b h split over t, the attention
 * block's 8 s b h are its queries, keys, values and output (2 bytes each of h per token); with
 * grouped-query heads, a head dimension of its own or latent attention they are 2 s b (heads d_qk
 * + kvHeads d_qk + kvHeads d_v + heads d_v), and latent attention also keeps its two latents and
 * their norms' outputs, 2 s b (2 q_lora + kv_lora + rope + kv_lora), with the unsplit part (the
 * down-projections run replicated, over the sequence-parallel shard). An MoE layer replaces the dense MLP's
 * 19 s b h with what its experts keep: the routed tokens' inputs and intermediates (top-k x
 * capacity factor per token, the expert TP group's rows at ffn / etp), the shared experts' and the router's scores. A stage's
 * activations are allocated when its forward starts and freed when its backward has used them,
 * so the peak follows the schedule as run.
 */
public final class MemoryModel {
    /**
     * Bytes every GPU loses before the model: the CUDA context and kernels (about 0.5 GB on
     * Hopper), cuBLAS and NCCL buffers and the caching allocator's fragmentation. 1 GiB is our
     * assumption, in the range PyTorch users measure; it is not fitted to any training result.
     */
    public static final long FRAMEWORK_RESERVE = 1L << 30;

    private final TrainingStep step;

    public MemoryModel(TrainingStep step) {
        this.step = step;
    }

    /**
     * Fixed bytes on one GPU of pipeline rank {@code p}.
     *
     * @param weights   bf16 weights
     * @param gradients gradients
     * @param optimizer Adam state
     * @param workspace framework reserve and the last stage's logits buffers
     */
    public record States(double weights, double gradients, double optimizer, double workspace) {
        public double total() {
            return weights + gradients + optimizer + workspace;
        }
    }

    public States states(int p) {
        var placement = step.schedule().placement(step.pp(), step.microbatches());
        double params = 0;
        double experts = 0;
        boolean last = false;
        for (int chunk = 0; chunk < placement.chunksPerRank(); chunk++) {
            int stage = placement.stageOfChunk(p, chunk);
            params += step.stageParams(stage);
            experts += step.separateExperts() ? step.stageExpertParams(stage) : 0;
            last |= stage == step.stages() - 1;
        }
        double dense = params - experts;
        int d = step.shardSize();
        int e = step.expertShardSize();
        double grads = step.kernels().mainGradBytes() * (step.zero() >= 2 ? dense / d + experts / e : params);
        double optimizer = step.kernels().optimizerStateBytes() * (step.zero() >= 1 ? dense / d + experts / e : params);
        double weights = 2 * params;
        if (step.zero() == 3) {
            // the shard, plus what the framework holds gathered, and its unsharded gradient buffers
            ShardedMemory sharded = new ShardedMemory(step);
            weights = 2 * dense / d + sharded.gatheredWeightBytes(p);
            grads += sharded.gradientBufferBytes();
        }
        double workspace = FRAMEWORK_RESERVE + (last ? logitsBytes() : 0);
        return new States(weights, grads, optimizer, workspace);
    }

    /** The fp32 logits of one microbatch and their gradient on one GPU: 2 x 4 b (s / cp) V / t. */
    private double logitsBytes() {
        return 2.0 * 4 * step.microBatch() * ((double) step.seqLen() / step.cp()) * step.model().vocab() / step.tp();
    }

    /** Activation bytes one microbatch leaves on a GPU for one stage until its backward. */
    public long activationBytes(int stage) {
        double sum = 0;
        int first = step.split().firstLayer(stage);
        for (int l = first; l < first + step.split().layers(stage); l++) {
            sum += layerActivationBytes(l);
        }
        return Math.round(sum);
    }

    private double layerActivationBytes(int l) {
        TransformerModel model = step.model();
        double s = (double) step.seqLen() / step.cp(); // context parallelism keeps s / cp tokens per GPU
        double b = step.microBatch();
        double h = model.hidden();
        double a = model.heads();
        int t = step.tp();
        boolean sp = step.sequenceParallel() && t > 1;
        if (step.recompute() == LayerCostModel.Recompute.FULL) {
            return 2 * s * b * h / (sp ? t : 1);
        }
        Set<RecomputeModule> modules = step.recomputeModules();
        double scores = step.attention() == AttentionImpl.STANDARD
                && !modules.contains(RecomputeModule.CORE_ATTN) ? 5 * a * s * step.seqLen() * b : 0;
        double queriesKeysValues = (double) model.heads() * model.headDim() + (double) model.keyValueWidth();
        double qkvo = queriesKeysValues + model.attentionOutputWidth();
        double attention = 2 * qkvo; // 8 h for multi-head attention with d = h / heads
        if (modules.contains(RecomputeModule.MLA_UP_PROJ)) {
            // the up-projections' queries, keys and values are discarded and rebuilt from the latents
            attention -= 2 * queriesKeysValues;
        }
        LatentAttention mla = model.latentAttention();
        double latents = mla == null ? 0 : 2.0 * (2 * mla.qLoraRank() + mla.kvDownWidth() + mla.kvLoraRank());
        double unsplit = (10 * h + latents) * s * b;
        double split = (16 * h + attention) * s * b;
        double tokens = s * b;
        // the dense MLP's 19 s b h (Korthikanti et al.: its input, 8 h-wide intermediates, dropout mask)
        double mlp = sp ? 19 * tokens * h / t : 2 * tokens * h + 17 * tokens * h / t;
        double norms = sp ? 4 * tokens * h / t : 4 * tokens * h;
        double dense = sp ? (unsplit + split + scores) / t : unsplit + (split + scores) / t;
        if (modules.contains(RecomputeModule.LAYERNORM)) {
            // output-discarding checkpoints of both norms: their outputs, 2 s b h each, are rebuilt
            dense -= norms;
        }
        if (!model.isMoeLayer(l)) {
            // the MLP recomputed keeps only its input, the residual stream kept anyway
            return modules.contains(RecomputeModule.MLP) ? dense - mlp : dense;
        }
        // swap the dense MLP's 19 s b h (its 8 h-wide intermediates and inputs) for the experts'
        TransformerModel.Experts e = model.experts();
        int matrices = model.ffnKind().matrices();
        int et = step.etp();
        // each GPU keeps the routed rows its expert TP group gathered (etp of the t shares) at ffn / etp
        // input, fc1 outputs, activation output; moe_act discards the activation's (ffn / etp)
        double perRoutedToken = 2 * h + 2.0 * (modules.contains(RecomputeModule.MOE_ACT) ? matrices - 1 : matrices)
                * e.ffn() / et;
        double routedRows = et == t ? tokens * e.routedPerToken() : tokens * e.routedPerToken() / t * et;
        // the shared experts recomputed keep only their input
        double sharedInner = modules.contains(RecomputeModule.SHARED_EXPERTS) ? 0 : 2.0 * matrices * e.ffn() / t;
        double moe = routedRows * perRoutedToken
                + tokens * e.shared() * (2 * h / (sp ? t : 1) + sharedInner)
                + tokens * e.count() * 4.0 / (sp ? t : 1);
        return dense - mlp + moe;
    }
}
