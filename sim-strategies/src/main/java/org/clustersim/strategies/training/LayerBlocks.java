package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import org.clustersim.core.engine.OpBreakdown;
import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.model.TransformerModel;

/**
 * The cost model's blocks as a step's tasks use them, built once and shared by every rank and
 * microbatch: each kind of layer's blocks (dense or MoE, full or windowed attention), a layer's
 * blocks summed into one for the passes that run it as a single task, and how a block's time in
 * a pass splits over its ops (what the trace shows inside a compute slice).
 */
final class LayerBlocks {
    private final LayerCostModel cost;
    private final LayerCostModel bf16Cost;
    private final Numerics numerics;
    private final Kind[] kinds = new Kind[8];
    private final Map<LayerCostModel.Block[], LayerCostModel.Block> wholeLayers = new IdentityHashMap<>();
    private final Map<LayerCostModel.Block, OpBreakdown[]> breakdowns = new IdentityHashMap<>();

    /**
     * The blocks of one kind of layer.
     *
     * @param layer with recomputation applied
     * @param base  without recomputation, for replaying the forward with its collectives (full recompute)
     * @param core  the attention core alone, for splitting the attention block into ring-attention steps
     */
    record Kind(LayerCostModel.Block[] layer, LayerCostModel.Block[] base, LayerCostModel.Block core) {
    }

    /** Every layer at {@code cost}'s precision. */
    LayerBlocks(LayerCostModel cost) {
        this(cost, null);
    }

    /**
     * Layers at {@code cost}'s precision but those {@code numerics} keeps in bf16
     * ({@link Numerics#bf16Layer}), which take {@link LayerCostModel#inBf16}'s blocks.
     */
    LayerBlocks(LayerCostModel cost, Numerics numerics) {
        this.cost = cost;
        this.numerics = numerics;
        this.bf16Cost = numerics != null && numerics.kernels().quantised() && numerics.bf16Layers().any()
                ? cost.inBf16() : null;
    }

    LayerCostModel cost() {
        return cost;
    }

    /**
     * Layer {@code l}'s kind: its blocks shared with every layer of the same MLP, attention and
     * precision.
     */
    Kind kind(int l) {
        TransformerModel m = cost.model();
        boolean bf16 = bf16Cost != null && numerics.bf16Layer(l, m.layers());
        int key = (m.isMoeLayer(l) ? 1 : 0) + (m.isWindowed(l) ? 2 : 0) + (bf16 ? 4 : 0);
        if (kinds[key] == null) {
            LayerCostModel c = bf16 ? bf16Cost : cost;
            kinds[key] = new Kind(c.layer(l), c.baseLayer(l), c.attentionCore(l));
        }
        return kinds[key];
    }

    /** A layer's blocks as one (for the passes that run them as one task). */
    LayerCostModel.Block whole(LayerCostModel.Block[] blocks) {
        return wholeLayers.computeIfAbsent(blocks, k -> {
            LayerCostModel.Block sum = blocks[0];
            for (int i = 1; i < blocks.length; i++) {
                sum = sum.plus(blocks[i]);
            }
            return sum;
        });
    }

    /** How a block's time in a pass splits over its ops, built once per block and pass. */
    OpBreakdown ops(LayerCostModel.Block b, Pass p) {
        OpBreakdown[] byPass = breakdowns.computeIfAbsent(b, k -> new OpBreakdown[Pass.values().length]);
        if (byPass[p.ordinal()] == null) {
            List<String> names = new ArrayList<>(b.ops().size());
            double[] ns = new double[b.ops().size()];
            for (int i = 0; i < ns.length; i++) {
                LayerCostModel.OpTime t = b.ops().get(i);
                names.add(t.op());
                ns[i] = p.ns(t);
            }
            byPass[p.ordinal()] = new OpBreakdown(names, ns);
        }
        return byPass[p.ordinal()];
    }
}
