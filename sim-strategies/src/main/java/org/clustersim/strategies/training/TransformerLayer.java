package org.clustersim.strategies.training;

import java.util.List;

import org.clustersim.core.engine.TaskTag;
import org.clustersim.strategies.cost.LayerCostModel;

/**
 * One transformer layer's tasks in one pass, composed from the parts: the attention block
 * with its tensor-parallel collectives around it and its context-parallel K/V exchange, then
 * the MLP block, dense (tensor-parallel collectives around it) or MoE ({@link ExpertParallel});
 * the backward runs them in reverse. Under full recomputation the backward first replays the
 * layer's forward, collectives included. Where no collective separates the blocks (weight
 * gradients, or one GPU and no expert exchange) the layer runs as one task.
 *
 * <p>Parallel blocks (GPT-J, PaLM): both branches read one norm's output, so tensor parallelism
 * exchanges once per layer and pass: one all-gather before the two branches under sequence
 * parallelism, and one reduction (all-reduce, or reduce-scatter) of their summed outputs after
 * them; the backward likewise gathers the output gradient once and reduces the two input
 * gradients' sum once. The output side is GPT-NeoX's ({@code ParallelTransformerLayer} in
 * EleutherAI/gpt-neox megatron/model/transformer.py: with {@code gpt_j_residual} the two
 * row-parallel outputs are added, then all-reduced, or reduce-scattered under sequence
 * parallelism, once; with {@code gpt_j_tied} one norm feeds both). The one exchange on the input
 * side is what one fused input projection (PaLM's QKV and fc1) needs; a framework that gathers
 * each branch's input separately exchanges twice there. The overlap of these exchanges with the
 * GEMMs (userbuffers, collective matmul) is not modelled: LayoutRules refuses it.
 *
 * <p>Asynchronous backward collectives (XLA on a TPU mesh without collective matmul): XLA's
 * latency-hiding scheduler issues each collective as an async start/done pair and places
 * independent work between them ({@code --xla_tpu_enable_async_collective_fusion},
 * {@code --xla_tpu_overlap_compute_collective_tc}, which MaxText's TPU scripts set). In a dense
 * block's backward the weight-gradient dots do not read the input gradient, so the block's
 * input-gradient reduction and the next block's output-gradient all-gather run under them: each
 * block's backward is its input-gradient pass, the reduction launched beside the chain, then its
 * weight-gradient pass; the next block's gather waits only for that reduction and its
 * input-gradient pass for both. The forward has no such independent work and stays exposed.
 */
final class TransformerLayer {
    private final LayerBlocks blocks;
    private final TensorParallel tensor;
    private final KeyValueExchange context;
    private final ExpertParallel experts;
    private final boolean fullRecompute;
    /** Userbuffers overlap of the dense blocks' TP communication, or null when it is off. */
    private final TensorParallelOverlap overlap;
    /**
     * Bytes of the attention block's input-side TP exchange (the sequence-parallel all-gather in
     * the forward, the input-gradient reduction in the backward): the activations, or for latent
     * attention the latents the up-projections gather.
     */
    private final long attentionInputBytes;
    /** Whether the dense blocks' backward collectives run asynchronously beside the weight-gradient pass (XLA). */
    private final boolean asyncBackward;

    /**
     * @param asyncBackward the dense blocks' backward TP collectives run beside their weight-gradient
     *                      passes, as XLA schedules async collectives (a TPU mesh without collective
     *                      matmul; only without context parallelism)
     */
    TransformerLayer(LayerBlocks blocks, TensorParallel tensor, KeyValueExchange context, ExpertParallel experts,
                     TensorParallelOverlap overlap, boolean asyncBackward) {
        this.blocks = blocks;
        this.asyncBackward = asyncBackward && overlap == null && tensor.tp() > 1 && tensor.cp() == 1;
        this.overlap = overlap;
        this.tensor = tensor;
        this.context = context;
        this.experts = experts;
        LayerCostModel cost = blocks.cost();
        this.fullRecompute = cost.recompute() == LayerCostModel.Recompute.FULL;
        this.attentionInputBytes = Math.round((double) tensor.activationBytes() * cost.model().attentionInputWidth()
                / cost.model().hidden());
    }

    /**
     * The tasks of layer {@code l} in pass {@code p}, appended to {@code chain}; the tasks that
     * complete the layer's weight gradients are added to {@code grads}.
     */
    void emit(Chain chain, Pass p, int l, String label, List<Integer> grads) {
        boolean moe = blocks.cost().model().isMoeLayer(l);
        LayerBlocks.Kind kind = blocks.kind(l);
        LayerCostModel.Block[] layer = kind.layer();
        boolean exchanges = moe && experts.exchanges();
        if (p == Pass.W || (chain.devices().length == 1 && !exchanges)) {
            // no collective between the blocks: one task per layer
            int id = chain.compute(label + " L" + l, blocks.whole(layer), p);
            if (p.completesGradients()) {
                grads.add(id);
            }
            return;
        }
        String at = label + " L" + l;
        boolean backward = p.backward();
        boolean replayed = backward && fullRecompute;
        boolean parallel = blocks.cost().model().parallelBlocks();
        if (replayed) {
            // replay the layer's forward, collectives included, then run the backward proper
            layer = kind.base();
            TaskTag pass = chain.tag();
            chain.at(pass.recomputed());
            if (parallel) {
                parallel(chain, Pass.F, layer, kind.core(), at, " recompute", true);
            } else {
                attention(chain, Pass.F, layer[0], kind.core(), at + " attn recompute", true);
                mlp(chain, Pass.F, layer, at, " recompute");
            }
            chain.at(pass);
        }
        if (asyncBackward && p == Pass.B) {
            int last;
            if (parallel) {
                last = asyncBlock(chain, new LayerCostModel.Block[] {layer[1], layer[0]}, kind.core(), at,
                        at + " attn+mlp", !replayed);
            } else {
                last = layer.length == 2 ? asyncBlock(chain, new LayerCostModel.Block[] {layer[1]}, null, at,
                        at + " mlp", false) : mlp(chain, p, layer, at, "");
                last = asyncBlock(chain, new LayerCostModel.Block[] {layer[0]}, kind.core(), at, at + " attn",
                        !replayed);
            }
            grads.add(last);
            return;
        }
        if (parallel) {
            int last = parallel(chain, p, layer, kind.core(), at, "", !replayed);
            if (p == Pass.B) {
                grads.add(last);
            }
            return;
        }
        int lastCompute;
        if (backward) {
            mlp(chain, p, layer, at, "");
            lastCompute = attention(chain, p, layer[0], kind.core(), at + " attn", !replayed);
        } else {
            attention(chain, p, layer[0], kind.core(), at + " attn", true);
            lastCompute = mlp(chain, p, layer, at, "");
        }
        if (p == Pass.B) {
            grads.add(lastCompute);
        }
    }

    /**
     * The attention block: with sequence parallelism an all-gather before it, the K/V exchange
     * of context parallelism, the TP reduction after it. With latent attention the exchange on
     * the block's input side (the forward's all-gather, the backward's input-gradient reduction)
     * carries the latents rather than b s h.
     *
     * @return the block's last compute task
     */
    private int attention(Chain chain, Pass p, LayerCostModel.Block block, LayerCostModel.Block core, String name,
                          boolean gatherKv) {
        if (overlap != null) {
            var parts = overlap.split(block, "qkv", "proj");
            if (parts.isPresent()) {
                return overlap.emit(chain, p, parts.get(), name,
                        (c, pass, mid) -> context.attend(c, pass, mid, core, name + " core", gatherKv));
            }
        }
        boolean backward = p.backward();
        tensor.gather(chain, name, backward ? tensor.activationBytes() : attentionInputBytes);
        int id = context.attend(chain, p, block, core, name, gatherKv);
        tensor.reduce(chain, name, backward ? attentionInputBytes : tensor.activationBytes());
        return id;
    }

    /**
     * A parallel layer's two branches between one TP all-gather (sequence parallelism) and one TP
     * reduction of their summed outputs (or, backward, of their summed input gradients); the
     * attention first in the forward, the MLP first in the backward.
     *
     * @return the layer's last compute task
     */
    private int parallel(Chain chain, Pass p, LayerCostModel.Block[] layer, LayerCostModel.Block core, String at,
                         String suffix, boolean gatherKv) {
        String name = at + " attn+mlp" + suffix;
        tensor.gather(chain, name, tensor.activationBytes());
        int last;
        if (p.backward()) {
            chain.compute(at + " mlp" + suffix, layer[1], p);
            last = context.attend(chain, p, layer[0], core, at + " attn" + suffix, gatherKv);
        } else {
            context.attend(chain, p, layer[0], core, at + " attn" + suffix, gatherKv);
            last = chain.compute(at + " mlp" + suffix, layer[1], p);
        }
        tensor.reduce(chain, name, tensor.activationBytes());
        return last;
    }

    /**
     * One exchange's backward with XLA's asynchronous collectives: the all-gather of the output
     * gradient (sequence parallelism) beside the chain after the reduction still in flight, the
     * blocks' input-gradient passes, their input-gradient reduction launched beside the chain, then
     * their weight-gradient passes under it; the chain's next task waits for the reduction.
     *
     * @param parts    the blocks sharing the exchange, in backward order (one, or a parallel layer's
     *                 MLP then attention); with {@code core} non-null the last is the attention block
     * @param at       the layer's label ("B mb0 L3"); the blocks' tasks are named from it
     * @param exchange the label of the blocks' TP exchange
     * @return the last weight-gradient task
     */
    private int asyncBlock(Chain chain, LayerCostModel.Block[] parts, LayerCostModel.Block core, String at,
                           String exchange, boolean gatherKv) {
        long outBytes = tensor.activationBytes();
        long inBytes = core != null && parts.length == 1 ? attentionInputBytes : tensor.activationBytes();
        int pending = chain.awaited();
        int gathered = tensor.gatherBeside(chain, exchange, outBytes, pending >= 0 ? pending : chain.last());
        if (gathered >= 0) {
            chain.await(gathered);
        }
        int dgrad = -1;
        for (LayerCostModel.Block b : parts) {
            boolean attention = core != null && b == parts[parts.length - 1];
            String block = at + (attention ? " attn" : " mlp");
            dgrad = attention ? context.attend(chain, Pass.BI, b, core, block + " dgrad", gatherKv)
                    : chain.compute(block + " dgrad", b, Pass.BI);
        }
        int reduced = tensor.reduceBeside(chain, exchange, inBytes, dgrad);
        int wgrad = -1;
        for (LayerCostModel.Block b : parts) {
            boolean attention = core != null && b == parts[parts.length - 1];
            wgrad = chain.compute(at + (attention ? " attn" : " mlp") + " wgrad", b, Pass.W);
        }
        if (reduced >= 0) {
            chain.await(reduced);
        }
        return wgrad;
    }

    /** The MLP block: dense, with the attention block's TP collectives, or MoE. */
    private int mlp(Chain chain, Pass p, LayerCostModel.Block[] layer, String at, String suffix) {
        if (layer.length != 2) {
            return experts.mlp(chain, p, layer, at, suffix);
        }
        String name = at + " mlp" + suffix;
        if (overlap != null) {
            var parts = overlap.split(layer[1], "fc1", "fc2");
            if (parts.isPresent()) {
                return overlap.emit(chain, p, parts.get(), name,
                        (c, pass, mid) -> c.compute(name + " act", mid, pass));
            }
        }
        tensor.gather(chain, name, tensor.activationBytes());
        int id = chain.compute(name, layer[1], p);
        tensor.reduce(chain, name, tensor.activationBytes());
        return id;
    }
}
