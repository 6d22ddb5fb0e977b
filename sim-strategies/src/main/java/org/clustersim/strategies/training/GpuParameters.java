package org.clustersim.strategies.training;

import org.clustersim.strategies.model.TransformerModel;

/**
 * The parameters one GPU holds, layer by layer and stage by stage: its TP shard of the
 * matrices, the matrices every TP rank holds whole, its share of the experts, the norms, and on
 * the first and last stage the embedding and the logits. What the memory model, the gradient
 * reductions and ZeRO's gathers size themselves by.
 *
 * @param model the transformer
 * @param tp    tensor-parallel size
 * @param ep    expert-parallel size
 * @param etp   expert tensor-parallel size: each routed expert's matrices are split over etp GPUs
 * @param split layers per stage
 */
public record GpuParameters(TransformerModel model, int tp, int ep, int etp, LayerSplit split) {

    /** Experts split over the attention's TP group (etp = tp). */
    public GpuParameters(TransformerModel model, int tp, int ep, LayerSplit split) {
        this(model, tp, ep, tp, split);
    }

    /** Parameters for stage {@code stage} (its TP shard of the stage's layers and extras). */
    public double stage(int stage) {
        double params = stageLayers(stage);
        if (stage == 0) {
            params += (double) model.vocab() * model.hidden() / tp;
        }
        if (stage == split.stages() - 1 && !model.tiedEmbeddings()) {
            params += (double) model.vocab() * model.hidden() / tp;
        }
        return params;
    }

    /** Of {@link #stage}, the expert weights (sharded and reduced over the expert-holding ranks). */
    public double stageExperts(int stage) {
        double params = 0;
        for (int l = split.firstLayer(stage); l < split.firstLayer(stage) + split.layers(stage); l++) {
            params += experts(l);
        }
        return params;
    }

    /** Of {@link #stage}, the layers' (what ZeRO 3 gathers and reduces layer by layer). */
    public double stageLayers(int stage) {
        double params = 0;
        for (int l = split.firstLayer(stage); l < split.firstLayer(stage) + split.layers(stage); l++) {
            params += layer(l);
        }
        return params;
    }

    /**
     * Parameters of layer {@code l}: its TP shard of the matrices, the matrices every TP rank
     * holds whole (latent attention's down-projections, an MoE layer's router), its experts, the
     * norms. (The duplicated down-projections' gradients are all-reduced over TP with sequence
     * parallelism, as Megatron-core does for norms; that small reduction is not simulated, for
     * them or for the norms.)
     */
    public double layer(int l) {
        double whole = model.attentionReplicatedParams();
        if (!model.isMoeLayer(l)) {
            return (model.layerMatmulParams(l) - whole) / tp + whole + model.layerNormParams();
        }
        TransformerModel.Experts e = model.experts();
        double sharded = model.attentionParams() - whole + e.shared() * model.mlpParams(e.ffn());
        return sharded / tp + whole + model.routerParams() + experts(l) + model.layerNormParams();
    }

    /** Routed-expert parameters of layer {@code l}: experts / ep of them, split over etp. */
    public double experts(int l) {
        if (!model.isMoeLayer(l)) {
            return 0;
        }
        return (double) model.experts().count() / ep * model.mlpParams(model.experts().ffn()) / etp;
    }

    /** The largest layer's parameters (what ZeRO 3 holds gathered). */
    public double maxLayer() {
        double max = 0;
        for (int l = 0; l < model.layers(); l++) {
            max = Math.max(max, layer(l));
        }
        return max;
    }
}
