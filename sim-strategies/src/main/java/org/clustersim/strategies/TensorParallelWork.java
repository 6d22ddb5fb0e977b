package org.clustersim.strategies;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.clustersim.core.engine.Phase;
import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Work;
import org.clustersim.strategies.collective.CollectiveOp;
import org.clustersim.strategies.collective.Collectives;
import org.clustersim.strategies.collective.CommGroup;
import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.strategies.pipeline.ActionKind;
import org.clustersim.strategies.pipeline.PipelineOp;
import org.clustersim.strategies.pipeline.StageWork;
import org.clustersim.topology.Topology;

/**
 * How a tensor-parallel pipeline rank runs its actions, layer by layer, as Megatron-LM does:
 * each layer's attention block and MLP block are compute tasks that occupy the compute
 * streams of all t GPUs of the rank together (they run in lockstep), and after each block's
 * forward and input-gradient pass comes the tensor-parallel collective: an all-reduce of the
 * b s h activations, or with sequence parallelism an all-gather before and a reduce-scatter
 * after each block. Weight-gradient passes need no communication. The first stage also embeds
 * tokens, the last computes logits and loss. Each layer's weight gradients are complete when
 * its block's weight pass (or full backward) ends, which is what gradient buckets wait for.
 */
final class TensorParallelWork implements StageWork {
    private final LayerCostModel cost;
    private final Topology topology;
    private final int stages;
    /** Tensor- and context-parallel sizes: a rank's devices are cp groups of tp, CP rank-major. */
    private final int tp;
    private final int cp;
    /** Keys and values of the whole sequence on one TP rank, bf16: the CP all-gather's size. */
    private final long kvBytes;
    private final LayerSplit split;
    private final long activationBytes;
    private final boolean sequenceParallel;
    private final LayerCostModel.Block[] layer;
    /** The blocks without recomputation, for replaying the forward with its collectives (full recompute). */
    private final LayerCostModel.Block[] base;
    private final boolean fullRecompute;
    private final LayerCostModel.Block logits;
    private final LayerCostModel.Block embedding;
    private final Map<String, Collectives.Choice> chosen = new HashMap<>();
    /** ZeRO-3: each rank's uses of sharded layer weights, in the rank's program order (key: first device). */
    private final Map<Integer, List<ShardUse>> shardUses;

    /**
     * One layer pass under ZeRO-3 (FSDP). A pass that needs the layer's full weights
     * ({@code gathers}) has them all-gathered over the data-parallel group before {@code user}
     * starts, issued once {@code window} has ended (one layer of prefetch; -1: no constraint);
     * a pass that completes the layer's weight gradients has them reduce-scattered after
     * {@code gradsDone} (-1: it completes none).
     */
    static final class ShardUse {
        final int layer;
        final boolean gathers;
        final int window;
        int user = -1;
        int gradsDone = -1;

        ShardUse(int layer, boolean gathers, int window) {
            this.layer = layer;
            this.gathers = gathers;
            this.window = window;
        }
    }

    TensorParallelWork(LayerCostModel cost, Topology topology, LayerSplit split, long activationBytes,
                       boolean shardedWeights) {
        this.shardUses = shardedWeights ? new HashMap<>() : null;
        this.cost = cost;
        this.topology = topology;
        this.stages = split.stages();
        this.tp = cost.tp();
        this.cp = cost.cp();
        TransformerModel m = cost.model();
        this.kvBytes = Math.round(2.0 * cost.microBatch() * cost.seqLen() * m.kvHeads() * m.headDim() / tp * 2);
        this.split = split;
        this.activationBytes = activationBytes;
        this.sequenceParallel = cost.seqParallel() && cost.tp() > 1;
        this.layer = cost.layer();
        this.base = new LayerCostModel.Block[] {cost.attentionBlock(), cost.mlpBlock()};
        this.fullRecompute = cost.recompute() == LayerCostModel.Recompute.FULL;
        this.logits = cost.logits();
        this.embedding = cost.embedding();
    }

    private enum Pass { F, BI, W, B }

    private static Pass pass(ActionKind k) {
        return switch (k) {
            case FORWARD -> Pass.F;
            case BACKWARD_INPUT -> Pass.BI;
            case BACKWARD_WEIGHT -> Pass.W;
            case BACKWARD -> Pass.B;
        };
    }

    private static double ns(LayerCostModel.Block b, Pass p) {
        return switch (p) {
            case F -> b.fNs();
            case BI -> b.biNs();
            case W -> b.wNs();
            case B -> b.biNs() + b.wNs();
        };
    }

    private static double flops(LayerCostModel.Block b, Pass p) {
        return switch (p) {
            case F -> b.fFlops();
            case BI -> b.biFlops();
            case W -> b.wFlops();
            case B -> b.biFlops() + b.wFlops();
        };
    }

    /** Builds tasks in order on the rank's devices, chaining each to the previous one. */
    private final class Chain {
        final TaskGraph.Builder graph;
        final int[] devices;
        final int[] compute;
        int first = -1;
        int last = -1;
        ShardUse pending;

        Chain(TaskGraph.Builder graph, int[] devices) {
            this.graph = graph;
            this.devices = devices;
            this.compute = new int[devices.length];
            for (int i = 0; i < devices.length; i++) {
                compute[i] = graph.stream(devices[i], "compute", StreamKind.COMPUTE);
            }
        }

        int compute(String name, String category, double ns, double flops) {
            int id = graph.computeOn(name, category, compute, Math.round(ns), flops * devices.length);
            link(id);
            return id;
        }

        /** A TP collective of activations, in each of the rank's CP groups at once. */
        void collective(String name, CollectiveOp op) {
            if (tp == 1) {
                return;
            }
            List<Work.Communication> parts = new ArrayList<>();
            for (int c = 0; c < cp; c++) {
                parts.add(plan("tp", op, java.util.Arrays.copyOfRange(devices, c * tp, (c + 1) * tp), activationBytes));
            }
            link(graph.communicate(name, "tp-comm", streams("tp"), merge(parts)));
        }

        /** A CP collective of keys and values, over the CP group of each TP rank at once. */
        void context(String name, CollectiveOp op, long bytes) {
            if (cp == 1) {
                return;
            }
            List<Work.Communication> parts = new ArrayList<>();
            for (int t = 0; t < tp; t++) {
                int[] group = new int[cp];
                for (int c = 0; c < cp; c++) {
                    group[c] = devices[c * tp + t];
                }
                parts.add(plan("cp", op, group, bytes));
            }
            link(graph.communicate(name, "cp-comm", streams("cp"), merge(parts)));
        }

        /** The communication stream {@code name} of every device of the rank. */
        private int[] streams(String name) {
            int[] streams = new int[devices.length];
            for (int i = 0; i < devices.length; i++) {
                streams[i] = graph.stream(devices[i], name, StreamKind.COMMUNICATION);
            }
            return streams;
        }

        private void link(int id) {
            if (pending != null) {
                pending.user = id;
                pending = null;
            }
            if (last >= 0) {
                graph.addDependency(id, last);
            } else {
                first = id;
            }
            last = id;
        }
    }

    /** A collective's plan for this group, choosing the algorithm once per operation, size and group size. */
    private Work.Communication plan(String kind, CollectiveOp op, int[] devices, long bytes) {
        CommGroup group = new CommGroup(devices);
        String key = kind + "/" + op.name() + "/" + bytes + "/" + devices.length;
        Collectives.Choice c = chosen.get(key);
        if (c == null) {
            c = Collectives.plan("auto", op, group, bytes, topology);
            chosen.put(key, c);
            return c.work();
        }
        List<Phase> phases = c.algorithm().plan(op, group, bytes, c.protocol(), topology);
        return new Work.Communication(phases);
    }

    /** Concurrent collectives of the same shape as one: phase i of the result runs phase i of each. */
    private static Work.Communication merge(List<Work.Communication> parts) {
        if (parts.size() == 1) {
            return parts.get(0);
        }
        List<Phase> merged = new ArrayList<>();
        for (int i = 0; i < parts.get(0).phases().size(); i++) {
            List<org.clustersim.core.engine.Flow> flows = new ArrayList<>();
            long extra = 0;
            for (Work.Communication w : parts) {
                Phase ph = w.phases().get(i);
                flows.addAll(ph.flows());
                extra = Math.max(extra, ph.extraLatencyNs());
            }
            merged.add(new Phase(flows, extra));
        }
        return new Work.Communication(merged);
    }

    @Override
    public Emitted emit(TaskGraph.Builder graph, int[] devices, int rank, int stage, PipelineOp.Action a,
                        String label) {
        Pass p = pass(a.kind());
        Chain chain = new Chain(graph, devices);
        List<Integer> grads = new ArrayList<>();
        String cat = a.kind().category();
        int firstLayer = split.firstLayer(stage);
        int layersPerStage = split.layers(stage);
        boolean backward = p != Pass.F;
        if (p == Pass.F && stage == 0) {
            chain.compute(label + " embed", cat, ns(embedding, p), 0);
        }
        if (backward && stage == stages - 1) {
            int id = chain.compute(label + " logits", cat, ns(logits, p), flops(logits, p));
            if (p == Pass.W || p == Pass.B) {
                grads.add(id);
            }
        }
        List<ShardUse> uses = shardUses == null ? null : shardUses.computeIfAbsent(devices[0], k -> new ArrayList<>());
        int beforePrevious = -1;
        for (int i = 0; i < layersPerStage; i++) {
            int l = backward ? firstLayer + layersPerStage - 1 - i : firstLayer + i;
            // the weight-gradient pass (W) reuses the weights its backward gathered
            ShardUse use = uses == null ? null : new ShardUse(l, p != Pass.W, beforePrevious);
            if (use != null) {
                uses.add(use);
                if (use.gathers) {
                    chain.pending = use;
                }
            }
            beforePrevious = chain.last;
            emitLayer(chain, p, l, label, cat, grads);
            if (use != null && (p == Pass.B || p == Pass.W)) {
                use.gradsDone = chain.last;
            }
        }
        if (p == Pass.F && stage == stages - 1) {
            chain.compute(label + " logits", cat, ns(logits, p), flops(logits, p));
        }
        int[] ready = grads.stream().mapToInt(Integer::intValue).toArray();
        return new Emitted(chain.first, chain.last, ready);
    }

    /** Each rank's ZeRO-3 weight uses in program order, keyed by the first device of its TP group. */
    Map<Integer, List<ShardUse>> shardUses() {
        return shardUses;
    }

    /** The tasks of layer {@code l} in pass {@code p}: blocks, TP collectives, recompute replay. */
    private void emitLayer(Chain chain, Pass p, int l, String label, String cat, List<Integer> grads) {
        boolean backward = p != Pass.F;
        int[] devices = chain.devices;
        {
            if (p == Pass.W || devices.length == 1) {
                // no tensor-parallel collective between the blocks: one task per layer
                int id = chain.compute(label + " L" + l, cat, ns(layer[0], p) + ns(layer[1], p),
                        flops(layer[0], p) + flops(layer[1], p));
                if (p == Pass.W || p == Pass.B) {
                    grads.add(id);
                }
                return;
            }
            LayerCostModel.Block[] blocks = layer;
            if (backward && fullRecompute) {
                // replay the layer's forward, collectives included, then run the backward proper
                for (int b = 0; b < 2; b++) {
                    String block = b == 0 ? "attn" : "mlp";
                    if (sequenceParallel) {
                        chain.collective("tp-ag recompute " + label + " L" + l + " " + block, CollectiveOp.ALL_GATHER);
                    }
                    if (b == 0) {
                        chain.context("cp-ag kv recompute " + label + " L" + l, CollectiveOp.ALL_GATHER, kvBytes);
                    }
                    chain.compute(label + " L" + l + " " + block + " recompute", cat, base[b].fNs(),
                            base[b].fFlops());
                    chain.collective((sequenceParallel ? "tp-rs recompute " : "tp-ar recompute ") + label + " L" + l
                            + " " + block, sequenceParallel ? CollectiveOp.REDUCE_SCATTER : CollectiveOp.ALL_REDUCE);
                }
                blocks = base;
            }
            int[] order = backward ? new int[] {1, 0} : new int[] {0, 1};
            int lastBlock = -1;
            for (int b : order) {
                String block = b == 0 ? "attn" : "mlp";
                if (sequenceParallel) {
                    chain.collective("tp-ag " + label + " L" + l + " " + block, CollectiveOp.ALL_GATHER);
                }
                if (b == 0 && !(backward && fullRecompute)) {
                    // keys and values of the whole sequence before attention (Llama 3's CP
                    // all-gather), gathered again for the backward rather than kept
                    chain.context("cp-ag kv " + label + " L" + l, CollectiveOp.ALL_GATHER, kvBytes);
                }
                lastBlock = chain.compute(label + " L" + l + " " + block, cat, ns(blocks[b], p), flops(blocks[b], p));
                if (b == 0 && backward) {
                    // their gradients go back to the ranks that own them
                    chain.context("cp-rs dkv " + label + " L" + l, CollectiveOp.REDUCE_SCATTER, kvBytes);
                }
                chain.collective((sequenceParallel ? "tp-rs " : "tp-ar ") + label + " L" + l + " " + block,
                        sequenceParallel ? CollectiveOp.REDUCE_SCATTER : CollectiveOp.ALL_REDUCE);
            }
            if (p == Pass.B) {
                grads.add(lastBlock);
            }
        }
    }

    /**
     * An overlapped pair runs its forward chain, then its backward chain: the two overlap each
     * other's communication in DualPipe, not their compute, so the compute time is the sum.
     */
    @Override
    public Emitted emitOverlapped(TaskGraph.Builder graph, int[] devices, int rank, int forwardStage,
                                  int backwardStage, String label) {
        Emitted f = emit(graph, devices, rank, forwardStage,
                new PipelineOp.Action(ActionKind.FORWARD, 0, 0), label + " F");
        Emitted b = emit(graph, devices, rank, backwardStage,
                new PipelineOp.Action(ActionKind.BACKWARD, 0, 0), label + " B");
        graph.addDependency(b.first(), f.last());
        return new Emitted(f.first(), b.last(), b.gradReady());
    }
}
