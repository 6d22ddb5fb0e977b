package org.clustersim.strategies.training;

import org.clustersim.strategies.model.TransformerModel;

/**
 * Bytes one TPU chip holds for a step as XLA compiles a MaxText train step: the step the
 * scenario lays out on a JAX mesh ({@code parallelism.mesh}) under a MaxText remat policy
 * ({@link XlaRemat}). Used by {@link MemoryModel} in place of the GPU picture when the step has
 * an XLA remat policy.
 *
 * <p>Model states (src/maxtext/configs/base.yml at AI-Hypercomputer/maxtext@e591f30c:
 * {@code weight_dtype: float32}, {@code grad_dtype: float32}, {@code opt_type: adamw},
 * {@code mu_dtype} inheriting the weight dtype, optax's nu always the weight dtype): 4 bytes of
 * weights, 4 of gradients and 8 of Adam moments per parameter, every one sharded as the weight is.
 * MaxText's {@code logical_axis_rules} put a weight's {@code embed} dimension on
 * {@code fsdp, fsdp_transpose, context, expert} and its {@code heads} / {@code mlp} /
 * {@code vocab} dimension on {@code tensor}, so a chip holds 1 / (fsdp x sequence x expert x
 * tensor) of each dense weight (the experts' {@code exp} dimension on {@code expert},
 * {@code embed_moe} on {@code fsdp, context}); the {@code data} axis replicates, the
 * {@code stage} axis splits the layers. Checked against MaxText's own log (docs/guides/
 * monitoring_and_debugging/understand_logs_and_metrics.md: DeepSeek2-16B on v5p-8,
 * "estimated argument size: 44.5 GB", which is 15.933e9 parameters x 12 bytes / 4 chips in GiB).
 *
 * <p>In flight: the bf16 weights of the layer computing and of the next, gathered ahead by
 * XLA's scheduler (when the weights are sharded over fsdp, sequence or expert; one bf16 copy of
 * the layer otherwise); one layer's unsharded bf16 weight gradients before their reduce-scatters
 * (each matrix's reduce-scatter is issued as its gradient dot ends, so about one layer's worth is
 * alive at once; the bf16 gather and gradient dtypes are our reading of XLA moving the
 * {@code convert} to fp32 across the collective, uncertain).
 *
 * <p>Activations: the scan over layers stacks, per layer, the tensors the policy keeps on the
 * device and the backward reads ({@link #residual}), each 2 bytes (bf16, {@code dtype}) per element, per chip b x s / sequence tokens and
 * the width over tensor (the activation rules shard batch over {@code data, fsdp, expert}, length
 * over {@code context}, embed / heads / mlp over {@code tensor}); offloaded tensors are in host
 * memory, not HBM. An MoE layer's experts keep nothing under a named policy (MaxText's presets
 * name no {@code moe_mlpwi*} tensor); under {@code none} their routed rows' intermediates.
 *
 * <p>Workspace: no framework reserve (the HBM a chip reports is what XLA may allocate); the larger
 * of the last stage's logits and one layer's backward working set. The logits: one fp32 buffer,
 * 4 b s V / (sequence x tensor) bytes (vocab on {@code tensor}, {@code cast_logits_to_fp32: true},
 * {@code num_vocab_tiling: 1}), kept from the forward for the loss's backward; their gradient
 * (softmax minus one-hot, elementwise in the logits) is taken to be fused into the operands of
 * the output head's two backward dots rather than materialised (our reading of XLA's TPU
 * fusions of elementwise producers into dots; uncertain, and not measured). The working set: every
 * intermediate of the layer as recomputed (the {@code none} set) plus the next layer's offloaded
 * tensors brought back ahead of its backward. The two are not alive together: the loss's
 * backward ends before the layers' begins.
 */
public final class XlaMemory {
    /** Bytes of a weight, its gradient and each Adam moment as MaxText keeps them (fp32). */
    static final int WEIGHT_BYTES = 4;
    static final int GRADIENT_BYTES = 4;
    static final int MOMENT_BYTES = 4;
    /** Bytes of an activation element and of a gathered weight (bf16). */
    static final int ACTIVATION_BYTES = 2;

    private final TrainingStep step;
    private final XlaRemat remat;

    public XlaMemory(TrainingStep step) {
        this.step = step;
        this.remat = step.numerics().xlaRemat();
        if (remat == null) {
            throw new IllegalArgumentException("the step has no XLA remat policy");
        }
    }

    /** Ranks sharding the fsdp axis: ZeRO 3's shard group (the data axis replicates). */
    private int fsdp() {
        if (step.zero() != 3) {
            return 1;
        }
        return step.shardGroup() == 0 ? step.dp() : step.shardGroup();
    }

    /** Model states and workspace on a chip of pipeline rank {@code p}. */
    public MemoryModel.States states(int p) {
        var placement = step.schedule().placement(step.pp(), step.microbatches());
        double sharded = 0;
        boolean last = false;
        int denseShards = fsdp() * step.cp() * step.ep();
        int expertShards = fsdp() * step.cp();
        for (int chunk = 0; chunk < placement.chunksPerRank(); chunk++) {
            int stage = placement.stageOfChunk(p, chunk);
            // per chip already: the tensor shard, experts / ep
            double experts = step.stageExpertParams(stage);
            sharded += (step.stageParams(stage) - experts) / denseShards + experts / expertShards;
            last |= stage == step.stages() - 1;
        }
        double layer = step.parameters().maxLayer();
        boolean gathers = denseShards > 1;
        double weights = WEIGHT_BYTES * sharded + ACTIVATION_BYTES * layer * (gathers ? 2 : 1);
        double gradients = GRADIENT_BYTES * sharded + ACTIVATION_BYTES * layer;
        double optimizer = 2.0 * MOMENT_BYTES * sharded;
        double working = 0;
        for (int l = 0; l < step.model().layers(); l++) {
            working = Math.max(working, layerBytes(l, true) + hostBytes(l));
        }
        double workspace = Math.max(last ? logitsBytes() : 0, working);
        return new MemoryModel.States(weights, gradients, optimizer, workspace);
    }

    /** Bytes the scan keeps in HBM for one microbatch of a stage until its backward. */
    public long activationBytes(int stage) {
        double sum = 0;
        int first = step.split().firstLayer(stage);
        for (int l = first; l < first + step.split().layers(stage); l++) {
            sum += layerBytes(l, remat.all());
        }
        return Math.round(sum);
    }

    /** The fp32 logits of one microbatch on one chip. */
    double logitsBytes() {
        return 4.0 * step.microBatch() * ((double) step.seqLen() / step.cp()) * step.model().vocab() / step.tp();
    }

    /** Tokens of a microbatch on one chip. */
    private double tokens() {
        return (double) step.microBatch() * step.seqLen() / step.cp();
    }

    /** Bytes of layer {@code l}'s tensors the policy keeps on the device, or all its intermediates. */
    double layerBytes(int l, boolean all) {
        double width = 0;
        for (XlaRemat.Tensor t : XlaRemat.Tensor.values()) {
            if (all || remat.device().contains(t) && residual(t)) {
                width += width(l, t);
            }
        }
        if (all) {
            width += extraWidth(l);
        }
        return ACTIVATION_BYTES * tokens() * width / step.tp();
    }

    /** Bytes of layer {@code l}'s offloaded tensors (in host memory between the passes). */
    double hostBytes(int l) {
        double width = 0;
        for (XlaRemat.Tensor t : remat.host()) {
            if (residual(t)) {
                width += width(l, t);
            }
        }
        return ACTIVATION_BYTES * tokens() * width / step.tp();
    }

    /**
     * Whether the backward reads a named tensor at all. A remat policy only says which values
     * may be saved; {@code jax.checkpoint} saves (or offloads) just the residuals the backward
     * needs, recomputing the rest from them. The MLP's output projection feeds nothing but the
     * residual sum, whose gradient needs no value, so {@code mlpwo} is never kept; in a
     * parallel block the attention's output projection is in the same place. In a sequential
     * block {@code out_proj} is kept where the policy saves it: the post-attention norm's input
     * (the residual after attention) is rebuilt from it.
     */
    private boolean residual(XlaRemat.Tensor t) {
        return switch (t) {
            case MLPWO -> false;
            case OUT_PROJ -> !step.model().parallelBlocks();
            default -> true;
        };
    }

    /** Elements per token of a named tensor of layer {@code l}. */
    private double width(int l, XlaRemat.Tensor t) {
        TransformerModel m = step.model();
        double h = m.hidden();
        int matrices = m.ffnKind().matrices();
        boolean moe = m.isMoeLayer(l);
        return switch (t) {
            case DECODER_LAYER_INPUT, OUT_PROJ -> h;
            case QUERY_PROJ -> (double) m.heads() * m.headDim();
            case KEY_PROJ, VALUE_PROJ -> m.keyValueWidth() / 2.0;
            case CONTEXT -> m.attentionOutputWidth();
            case MLPWI -> moe ? 0 : (double) (matrices - 1) * m.ffn();
            case MLPWO -> moe ? 0 : h;
        };
    }

    /**
     * Elements per token of layer {@code l}'s unnamed intermediates, kept only without remat:
     * the two norms' outputs and the residual after attention (3 h), the MLP's activation output
     * (ffn), or an MoE layer's routed and shared experts' input, intermediates and output.
     */
    private double extraWidth(int l) {
        TransformerModel m = step.model();
        double h = m.hidden();
        int matrices = m.ffnKind().matrices();
        if (!m.isMoeLayer(l)) {
            return 3 * h + m.ffn();
        }
        TransformerModel.Experts e = m.experts();
        double perExpertToken = 2 * h + (double) matrices * e.ffn();
        return 3 * h + (e.routedPerToken() + e.shared()) * perExpertToken + e.count();
    }
}
