package org.clustersim.strategies.training;

import java.util.Set;

import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.cost.Precision;
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
 * so the peak follows the schedule as run. Parallel blocks (GPT-J, PaLM) keep one norm's input and
 * one norm output, which the QKV GEMM and fc1 share, and one residual's dropout mask: 5 s b h of
 * the 10 s b h that tensor parallelism does not split go (over t with sequence parallelism).
 *
 * <p>Under FP8 ({@code training.precision: fp8}) Transformer Engine's linear modules keep, for
 * the weight-gradient GEMM, the FP8 copy of their input they cast, not the bf16 tensor
 * (transformer_engine/pytorch/module/linear.py, {@code _linear_forward_impl}: the quantized
 * input is saved with only its column-wise (transposed) data, or only its row-wise data when
 * the backward must all-gather it under sequence parallelism, one byte an element either way;
 * layernorm_linear.py, {@code _LayerNormLinear.forward}: {@code ln_out} likewise, while the
 * norm's bf16 input stays saved for the norm's backward; layernorm_mlp.py keeps fc1's input
 * and fc2's input in FP8 the same way). So with Megatron-core's TE layer (QKV and fc1 as
 * LayerNormLinear, proj and fc2 as Linear) the two norm outputs and fc2's input cost one byte
 * an element instead of two; with blockwise scaling a 4-byte scale per 128 elements more, with
 * MXFP8 a one-byte scale per 32. Under NVFP4 the same tensors are kept as their column-wise NVFP4
 * copies (the wgrad operand, after the Hadamard transform), half a byte an element and an E4M3
 * scale byte per 16; a layer kept in bf16 ({@link org.clustersim.strategies.cost.Bf16Layers})
 * keeps bf16 tensors. The
 * attention output is the exception: fused attention keeps its bf16 output for its own backward
 * (attention/dot_product_attention/backends.py, {@code FusedAttnFunc.forward}, without FP8
 * attention), so proj's FP8 copy is held beside it, one byte an element more than in bf16;
 * under standard (unfused) or recomputed attention nothing else holds that bf16 output, and it
 * shrinks like the others. The experts' grouped GEMMs of an MoE layer are still counted in bf16.
 *
 * <p>A step laid out on a JAX mesh with a MaxText remat policy ({@link Numerics#xlaRemat}) is
 * counted as XLA keeps it instead ({@link XlaMemory}), in the same parts.
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
        if (step.numerics().xlaRemat() != null) {
            return new XlaMemory(step).states(p);
        }
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
        if (step.numerics().xlaRemat() != null) {
            return new XlaMemory(step).activationBytes(stage);
        }
        double sum = 0;
        int first = step.split().firstLayer(stage);
        for (int l = first; l < first + step.split().layers(stage); l++) {
            sum += layerActivationBytes(l);
        }
        return Math.round(sum);
    }

    /** Activation bytes one microbatch leaves on a GPU for layer {@code l} until its backward. */
    public long layerBytes(int l) {
        return Math.round(layerActivationBytes(l));
    }

    /**
     * The activation bytes of layer {@code l} counted layer by layer rather than with its stage's
     * (every layer's when activations are offloaded, {@link ActivationOffload}; 0 otherwise).
     */
    public long layerTrackedBytes(int l) {
        return step.execution().offloads() ? layerBytes(l) : 0;
    }

    /**
     * The bytes offloaded to host memory for layer {@code l} per microbatch: its activations when
     * it is one of the first {@code cpuOffloadLayers} of its stage, 0 otherwise.
     */
    public long offloadedBytes(int l) {
        int n = step.execution().offloadLayers();
        LayerSplit split = step.split();
        for (int st = 0; st < split.stages(); st++) {
            int first = split.firstLayer(st);
            if (l >= first && l < first + split.layers(st)) {
                return l - first < n ? layerBytes(l) : 0;
            }
        }
        return 0;
    }

    /**
     * Activation bytes one microbatch leaves for stage {@code stage} apart from those counted
     * layer by layer ({@link #layerTrackedBytes}).
     */
    public long keptActivationBytes(int stage) {
        long offloaded = 0;
        int first = step.split().firstLayer(stage);
        for (int l = first; l < first + step.split().layers(stage); l++) {
            offloaded += layerTrackedBytes(l);
        }
        return activationBytes(stage) - offloaded;
    }

    /**
     * Host memory the offloaded activations take per GPU at most: the offloaded layers of one
     * microbatch (Megatron-core offloads without pipeline parallelism, where one microbatch's
     * activations are alive at a time).
     */
    public long hostOffloadBytes() {
        long most = 0;
        LayerSplit split = step.split();
        for (int st = 0; st < split.stages(); st++) {
            long sum = 0;
            int first = split.firstLayer(st);
            for (int l = first; l < first + split.layers(st); l++) {
                sum += offloadedBytes(l);
            }
            most = Math.max(most, sum);
        }
        return most;
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
        // parallel blocks: one norm input, one norm output for QKV and fc1, one residual's mask fewer
        double unsplit = ((model.parallelBlocks() ? 5 : 10) * h + latents) * s * b;
        double split = (16 * h + attention) * s * b;
        double tokens = s * b;
        // the dense MLP's 19 s b h (Korthikanti et al.: its input, 8 h-wide intermediates, dropout mask)
        // (with parallel blocks its input is the attention's too, and its residual's mask is gone: 16 s b h)
        double mlp = model.parallelBlocks() ? 16 * tokens * h / t
                : sp ? 19 * tokens * h / t : 2 * tokens * h + 17 * tokens * h / t;
        double norms = (model.parallelBlocks() ? 2 : 4) * tokens * h / (sp ? t : 1);
        double dense = sp ? (unsplit + split + scores) / t : unsplit + (split + scores) / t;
        if (modules.contains(RecomputeModule.LAYERNORM)) {
            // output-discarding checkpoints of both norms: their outputs, 2 s b h each, are rebuilt
            dense -= norms;
        }
        if ((step.precision() == Precision.FP8 || step.precision() == Precision.NVFP4)
                && !step.numerics().bf16Layer(l, model.layers())) {
            dense -= fp8Saving(l, tokens, t, sp, modules);
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

    /**
     * Bytes an FP8 or NVFP4 layer saves for its backward below the same layer in bf16 (see the
     * class comment): the GEMM inputs Transformer Engine keeps as its quantised copies, each one
     * byte an element (plus the scales of blockwise or MXFP8 scaling; NVFP4: half a byte and a
     * scale byte per 16, {@link org.clustersim.strategies.cost.KernelCosts#savedOperandBytes})
     * instead of two, and the proj input's FP8 copy
     * held beside fused attention's bf16 output. Counted on the tensors as this model counts them
     * in bf16: the two norm outputs (h each), the attention output, and fc2's input (4 h, the
     * 8 s b h of Korthikanti's MLP).
     */
    private double fp8Saving(int l, double tokens, int t, boolean sp, Set<RecomputeModule> modules) {
        TransformerModel model = step.model();
        double h = model.hidden();
        double fp8 = step.kernels().savedOperandBytes();
        double saved = 2 - fp8;
        double bySp = sp ? t : 1;
        boolean mlp = !model.isMoeLayer(l) && !modules.contains(RecomputeModule.MLP);
        double out = 0;
        if (!modules.contains(RecomputeModule.LAYERNORM)) {
            // QKV's input, and fc1's where the MLP is a dense TE module (one input for both with parallel blocks)
            out += (mlp && !model.parallelBlocks() ? 2 : 1) * tokens * h * saved / bySp;
        }
        if (mlp) {
            out += 4 * tokens * h * saved / t;
        }
        double attentionOut = tokens * model.attentionOutputWidth() / t;
        boolean fusedKeepsOutput = step.attention() != AttentionImpl.STANDARD
                && !modules.contains(RecomputeModule.CORE_ATTN);
        out += fusedKeepsOutput ? -fp8 * attentionOut : saved * attentionOut;
        return out;
    }
}
