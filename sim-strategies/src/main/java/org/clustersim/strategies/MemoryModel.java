package org.clustersim.strategies;

import org.clustersim.strategies.cost.LayerCostModel;

/**
 * Bytes one GPU holds for a training step: model states and activations.
 *
 * <p>Model states with mixed-precision Adam (Rajbhandari et al., ZeRO, 2020): 2 bytes of
 * weights, 2 of gradients and 12 of optimizer state (fp32 master weights and two moments) per
 * parameter; ZeRO 1 shards the optimizer state over the d data-parallel ranks, ZeRO 2 the
 * gradients too, ZeRO 3 the weights as well (plus the gathered weights of two layers, the one
 * computing and the one prefetched). Activations per layer and microbatch (Korthikanti et al., "Reducing
 * Activation Recomputation in Large Transformer Models", 2022): 34 s b h + 5 a s^2 b bytes
 * without parallelism; with tensor parallelism 10 s b h + (24 s b h + 5 a s^2 b) / t, all of it
 * over t with sequence parallelism; fused attention keeps no score matrix (the 5 a s^2 b term
 * goes); selective recomputation drops that term too; full recomputation keeps only each
 * layer's input, 2 s b h (over t with sequence parallelism). A stage's activations are
 * allocated when its forward starts and freed when its backward has used them, so the peak
 * follows the schedule as run.
 */
public final class MemoryModel {
    private final TrainingStep step;

    public MemoryModel(TrainingStep step) {
        this.step = step;
    }

    /**
     * Model states on one GPU of pipeline rank {@code p}.
     *
     * @param weights   bf16 weights
     * @param gradients gradients
     * @param optimizer Adam state
     */
    public record States(double weights, double gradients, double optimizer) {
        public double total() {
            return weights + gradients + optimizer;
        }
    }

    public States states(int p) {
        var placement = step.schedule().placement(step.pp(), step.microbatches());
        double params = 0;
        for (int chunk = 0; chunk < placement.chunksPerRank(); chunk++) {
            params += step.stageParams(placement.stageOfChunk(p, chunk));
        }
        int d = step.dp() * step.cp(); // ZeRO shards over every rank that holds the same weights
        double grads = 2 * params / (step.zero() >= 2 ? d : 1);
        double optimizer = 12 * params / (step.zero() >= 1 ? d : 1);
        double weights = 2 * params;
        if (step.zero() == 3) {
            // the shard, plus the gathered bf16 weights of the layer in use and the one prefetched
            weights = 2 * params / d + 2 * 2 * step.layerParams();
        }
        return new States(weights, grads, optimizer);
    }

    /** Activation bytes one microbatch leaves on a GPU for one stage until its backward. */
    public long activationBytes(int stage) {
        var model = step.model();
        double s = (double) step.seqLen() / step.cp(); // context parallelism keeps s / cp tokens per GPU
        double b = step.microBatch();
        double h = model.hidden();
        double a = model.heads();
        int t = step.tp();
        boolean sp = step.sequenceParallel() && t > 1;
        double layers = step.split().layers(stage);
        double scores = step.attention() == LayerCostModel.Attention.STANDARD
                && step.recompute() == LayerCostModel.Recompute.NONE ? 5 * a * s * step.seqLen() * b : 0;
        double perLayer;
        if (step.recompute() == LayerCostModel.Recompute.FULL) {
            perLayer = 2 * s * b * h / (sp ? t : 1);
        } else if (sp) {
            perLayer = (34 * s * b * h + scores) / t;
        } else {
            perLayer = 10 * s * b * h + (24 * s * b * h + scores) / t;
        }
        return Math.round(layers * perLayer);
    }
}
