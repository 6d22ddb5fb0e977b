package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.TaskTag;
import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.pipeline.PipelineOp;
import org.clustersim.strategies.pipeline.StageWork;

/**
 * How a pipeline rank of tp x cp GPUs runs its actions, layer by layer, as Megatron-LM does:
 * the first stage also embeds tokens, the last computes logits and loss, and each of the
 * stage's layers in between runs as a {@link TransformerLayer} (in reverse for the backward).
 * Each layer's weight gradients are complete when its block's weight pass (or full backward)
 * ends, which is what gradient buckets wait for. Under ZeRO-3 every layer pass is recorded as a
 * use of the layer's sharded weights ({@link ShardedWeights}); where updated weights are
 * gathered ahead of the forward, the first forward of each stage records where it enters each
 * module ({@link ForwardEntries}).
 */
final class TransformerStageWork implements StageWork {
    private final LayerBlocks blocks;
    private final TransformerLayer layer;
    private final LayerSplit split;
    private final int stages;
    /** ZeRO-3's record of weight uses, or null when weights are not sharded. */
    private final ShardedWeights sharded;
    private final LayerCostModel.Block logits;
    private final LayerCostModel.Block embedding;
    /** Where first forwards enter their modules, or null when nobody needs it. */
    private final ForwardEntries forwards;
    /** Activations offloaded to the host, or null when none are. */
    private final ActivationOffload offload;
    /** Suffix of the layers' task names when they replay from CUDA graphs ("" otherwise). */
    private final String graphLabel;

    TransformerStageWork(LayerBlocks blocks, TransformerLayer layer, LayerSplit split, ShardedWeights sharded) {
        this(blocks, layer, split, sharded, null);
    }

    TransformerStageWork(LayerBlocks blocks, TransformerLayer layer, LayerSplit split, ShardedWeights sharded,
                         ForwardEntries forwards) {
        this(blocks, layer, split, sharded, forwards, blocks.cost(), null, false);
    }

    /**
     * @param outer    the cost model of the embedding and the logits (eager under per-layer CUDA
     *                 graphs, where only the layers are captured)
     * @param offload  the layers whose activations go to the host, or null
     * @param graphed  whether the layers replay from CUDA graphs (their task names say so)
     */
    TransformerStageWork(LayerBlocks blocks, TransformerLayer layer, LayerSplit split, ShardedWeights sharded,
                         ForwardEntries forwards, LayerCostModel outer, ActivationOffload offload, boolean graphed) {
        this.offload = offload;
        this.graphLabel = graphed ? " graph" : "";
        this.forwards = forwards;
        this.blocks = blocks;
        this.layer = layer;
        this.split = split;
        this.stages = split.stages();
        this.sharded = sharded;
        this.logits = outer.logits();
        this.embedding = outer.embedding();
    }

    @Override
    public Emitted emit(TaskGraph.Builder graph, int[] devices, int rank, int stage, PipelineOp.Action a,
                        String label) {
        Pass p = Pass.of(a.kind());
        TaskTag pass = TaskTag.of(a.kind().pass(), a.microbatch(), a.chunk());
        Chain chain = new Chain(graph, blocks, devices, pass);
        List<Integer> grads = new ArrayList<>();
        int firstLayer = split.firstLayer(stage);
        int layersPerStage = split.layers(stage);
        List<ForwardEntries.Entry> entered = p == Pass.F && forwards != null ? forwards.start(devices[0], stage)
                : null;
        if (p == Pass.F && stage == 0) {
            chain.compute(label + " embed", embedding, p);
        }
        if (p.backward() && stage == stages - 1) {
            int id = chain.compute(label + " logits", logits, p);
            if (p.completesGradients()) {
                grads.add(id);
            }
        }
        int beforePrevious = -1;
        ActivationOffload.Copies copies = offload == null ? null : offload.pass(chain, p, layersPerStage, label);
        for (int i = 0; i < layersPerStage; i++) {
            int l = p.backward() ? firstLayer + layersPerStage - 1 - i : firstLayer + i;
            chain.at(pass.atLayer(l));
            if (copies != null) {
                copies.before(p.backward() ? layersPerStage - 1 - i : i, firstLayer);
            }
            // the weight-gradient pass (W) reuses the weights its backward gathered
            ShardedWeights.Use use = sharded == null ? null
                    : sharded.use(devices[0], l, p, beforePrevious, chain.last());
            if (use != null && use.waits()) {
                chain.onNextTask(id -> use.user = id);
            }
            if (entered != null) {
                enter(chain, entered, l);
            }
            beforePrevious = chain.last();
            if (use != null && use.beforeNs > 0) {
                // the framework's copy-out kernels and hook time on the compute stream
                chain.compute(label + " L" + l + " unshard", chain.tag().shardCopy(), use.beforeNs, 0);
            }
            layer.emit(chain, p, l, label + graphLabel, grads);
            if (use != null && p.completesGradients()) {
                use.gradsDone = chain.last();
            }
            if (copies != null) {
                copies.after(p.backward() ? layersPerStage - 1 - i : i, firstLayer);
            }
        }
        if (p == Pass.F && stage == stages - 1) {
            chain.at(pass);
            if (entered != null) {
                enter(chain, entered, -1);
            }
            chain.compute(label + " logits", logits, p);
        }
        int[] ready = grads.stream().mapToInt(Integer::intValue).toArray();
        return new Emitted(chain.first(), chain.last(), ready, copies == null ? List.of() : copies.moves());
    }

    /**
     * Records where the forward enters module {@code layer} (-1: the logits): the chain's next
     * task, after the chain's last; at the forward's start (an embedding, if any, included) its
     * first task, after nothing.
     */
    private static void enter(Chain chain, List<ForwardEntries.Entry> entered, int layer) {
        if (entered.isEmpty() && chain.first() >= 0) {
            entered.add(new ForwardEntries.Entry(chain.first(), -1, layer));
            return;
        }
        int before = chain.last();
        chain.onNextTask(id -> entered.add(new ForwardEntries.Entry(id, before, layer)));
    }

    /**
     * An overlapped pair (DualPipe) runs two independent chains, the forward of one microbatch
     * and the backward of another, sharing the rank's GPUs: their compute tasks alternate on the
     * compute stream, block by block, so each chain's communication (TP collectives, the MoE
     * all-to-alls, CP exchanges) runs while the other chain computes. The compute time is the
     * sum of both; what is saved is the communication the other chain hides.
     */
    @Override
    public Overlap emitOverlapped(TaskGraph.Builder graph, int[] devices, int rank, PipelineOp.Overlapped pair,
                                  int forwardStage, int backwardStage, String label) {
        int start = graph.taskCount();
        int firstUse = sharded == null ? 0 : sharded.of(devices[0]).size();
        Emitted f = emit(graph, devices, rank, forwardStage, pair.forward(), label + " F");
        int middle = graph.taskCount();
        Emitted b = emit(graph, devices, rank, backwardStage, pair.backward(), label + " B");
        int[] order = alternate(graph, start, middle, graph.taskCount());
        graph.resequence(start, order);
        if (sharded != null) {
            // ZeRO-3 gathers and reductions run in the rank's new program order too
            int[] position = new int[order.length];
            for (int i = 0; i < order.length; i++) {
                position[order[i] - start] = i;
            }
            sharded.reorder(devices[0], firstUse, id -> position[id - start]);
        }
        return new Overlap(f, b);
    }

    /** Tasks [start, middle) and [middle, end) merged turn by turn, each turn running through its chain's next compute. */
    private static int[] alternate(TaskGraph.Builder graph, int start, int middle, int end) {
        int[] order = new int[end - start];
        int k = 0;
        int i = start;
        int j = middle;
        boolean forwardTurn = true;
        while (i < middle || j < end) {
            if (forwardTurn) {
                while (i < middle) {
                    order[k++] = i;
                    if (graph.isCompute(i++)) {
                        break;
                    }
                }
            } else {
                while (j < end) {
                    order[k++] = j;
                    if (graph.isCompute(j++)) {
                        break;
                    }
                }
            }
            forwardTurn = !forwardTurn;
        }
        return order;
    }
}
