package org.clustersim.strategies.training;

import java.util.Arrays;

/**
 * How many transformer layers each pipeline stage holds. Even by default; uneven splits let a
 * model whose layer count the stages do not divide be pipelined, and let the first and last
 * stages, which also carry the embedding and the logits, hold fewer layers (Llama 3 405B
 * runs 126 layers on 16 stages with one layer fewer on the first and the last; Dubey et al.,
 * "The Llama 3 Herd of Models", 2024, section 3.3.2).
 */
public final class LayerSplit {
    private final int[] layers;
    private final int[] first;

    private LayerSplit(int[] layers) {
        this.layers = layers.clone();
        this.first = new int[layers.length];
        for (int s = 1; s < layers.length; s++) {
            first[s] = first[s - 1] + layers[s - 1];
        }
    }

    /** {@code total / stages} layers on each stage; the stages must divide the layers. */
    public static LayerSplit even(int total, int stages) {
        if (stages < 1 || total % stages != 0) {
            throw new IllegalArgumentException(stages + " stages must divide " + total + " layers evenly;"
                    + " give the layers per stage instead");
        }
        int[] l = new int[stages];
        Arrays.fill(l, total / stages);
        return new LayerSplit(l);
    }

    /** An explicit split: every stage at least one layer, summing to {@code total}. */
    public static LayerSplit of(int total, int... perStage) {
        int sum = 0;
        for (int s = 0; s < perStage.length; s++) {
            if (perStage[s] < 1) {
                throw new IllegalArgumentException("stage " + s + " has " + perStage[s]
                        + " layers; every stage needs at least one");
            }
            sum += perStage[s];
        }
        if (sum != total) {
            throw new IllegalArgumentException("the layers per stage add up to " + sum + ", not the model's " + total);
        }
        return new LayerSplit(perStage);
    }

    /**
     * Megatron-core's split with {@code account_for_embedding_in_pipeline_split} and
     * {@code account_for_loss_in_pipeline_split}: the embedding (the loss) counts as one more
     * layer, the counted layers are divided evenly over the stages, and the first (last) stage in
     * pipeline order, virtual stage 0 of pipeline rank 0 (the last chunk of the last rank), builds
     * one transformer layer fewer. Megatron-LM megatron/core/transformer/transformer_block.py,
     * get_num_layers_to_build, whose divisibility checks (counted layers by the pipeline ranks,
     * then by the chunks per rank) this repeats as one: the stages must divide the counted layers.
     *
     * @param total     the model's transformer layers
     * @param stages    stages in pipeline order: pipeline ranks x chunks per rank
     * @param embedding whether the embedding counts as a layer of the first stage
     * @param loss      whether the loss (output layer) counts as a layer of the last stage
     */
    public static LayerSplit accounting(int total, int stages, boolean embedding, boolean loss) {
        int counted = total + (embedding ? 1 : 0) + (loss ? 1 : 0);
        if (stages < 1 || counted % stages != 0) {
            throw new IllegalArgumentException(stages + " stages do not divide " + total + " layers"
                    + (embedding ? " + 1 for the embedding" : "") + (loss ? " + 1 for the loss" : "") + " = "
                    + counted + " evenly");
        }
        int[] l = new int[stages];
        Arrays.fill(l, counted / stages);
        if (embedding) {
            l[0]--;
        }
        if (loss) {
            l[stages - 1]--;
        }
        if (l[0] < 1 || l[stages - 1] < 1) {
            throw new IllegalArgumentException("with " + counted / stages + " counted layer(s) per stage the "
                    + (l[0] < 1 ? "first" : "last") + " stage would hold no transformer layer, which is not modelled");
        }
        return new LayerSplit(l);
    }

    /** Layers of each stage in pipeline order. */
    public int[] perStage() {
        return layers.clone();
    }

    public int stages() {
        return layers.length;
    }

    /** Layers on {@code stage}. */
    public int layers(int stage) {
        return layers[stage];
    }

    /** Index of the first layer of {@code stage}. */
    public int firstLayer(int stage) {
        return first[stage];
    }

    /** Layers over all stages. */
    public int totalLayers() {
        return first[layers.length - 1] + layers[layers.length - 1];
    }

    /** Whether every stage holds the same number of layers. */
    public boolean isEven() {
        return Arrays.stream(layers).allMatch(l -> l == layers[0]);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LayerSplit other && Arrays.equals(layers, other.layers);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(layers);
    }

    @Override
    public String toString() {
        return Arrays.toString(layers);
    }
}
