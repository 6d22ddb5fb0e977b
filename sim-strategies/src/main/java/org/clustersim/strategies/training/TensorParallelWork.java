package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import org.clustersim.core.engine.OpBreakdown;
import org.clustersim.core.engine.Phase;
import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Work;
import org.clustersim.strategies.collective.CollectiveOp;
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
    /** Each kind of layer's blocks (dense or MoE, full or windowed attention), built on first use. */
    private final LayerKind[] kinds = new LayerKind[4];
    /**
     * Bytes of the attention block's input-side TP exchange (the sequence-parallel all-gather in
     * the forward, the input-gradient reduction in the backward): the activations, or for latent
     * attention the latents the up-projections gather.
     */
    private final long attentionInputBytes;
    private final boolean selectiveRecompute;
    private final ContextParallel cpKind;
    private final ExpertExchange experts;
    /** One GPU's routed tokens as dispatched (its 1/t share), bf16: the EP all-to-all's size. */
    private final long dispatchBytes;
    /** The routed (and shared-expert) tokens the TP group gathers for the experts, bf16. */
    private final long routedBytes;
    private final boolean fullRecompute;
    private final LayerCostModel.Block logits;
    private final LayerCostModel.Block embedding;
    private final Map<LayerCostModel.Block, OpBreakdown[]> breakdowns = new IdentityHashMap<>();
    private final Map<LayerCostModel.Block[], LayerCostModel.Block> wholeLayers = new IdentityHashMap<>();
    private final GroupPlans plans;
    /** The rank-wide communications merged from the groups' plans, by kind, size and first device. */
    private final Map<String, Work.Communication> merged = new HashMap<>();
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

    /**
     * The blocks of one kind of layer.
     *
     * @param layer with recomputation applied
     * @param base  without recomputation, for replaying the forward with its collectives (full recompute)
     * @param core  the attention core alone, for splitting the attention block into ring-attention steps
     */
    private record LayerKind(LayerCostModel.Block[] layer, LayerCostModel.Block[] base, LayerCostModel.Block core) {
    }

    /** Layer {@code l}'s kind: its blocks shared with every layer of the same MLP and attention. */
    private LayerKind kind(int l) {
        TransformerModel m = cost.model();
        int key = (m.isMoeLayer(l) ? 1 : 0) + (m.isWindowed(l) ? 2 : 0);
        if (kinds[key] == null) {
            kinds[key] = new LayerKind(cost.layer(l), cost.baseLayer(l), cost.attentionCore(l));
        }
        return kinds[key];
    }

    /**
     * Where an MoE layer's tokens go: {@code groupsOf} gives the expert-parallel groups a GPU's
     * all-to-all stands for. With {@code standIn} one replica is simulated for all: its task
     * carries every member's flows of every EP group at the GPU's mesh position (the other
     * replicas' groups exchange at the same time); otherwise the GPU's own group, and each
     * replica's task carries only the flows its own GPUs send (the others' tasks carry the rest).
     */
    record ExpertExchange(java.util.function.IntFunction<List<int[]>> groupsOf, boolean standIn) {
    }

    TensorParallelWork(LayerCostModel cost, Topology topology, LayerSplit split, long activationBytes,
                       boolean shardedWeights) {
        this(cost, topology, split, activationBytes, shardedWeights, ContextParallel.ALL_GATHER, null);
    }

    TensorParallelWork(LayerCostModel cost, Topology topology, LayerSplit split, long activationBytes,
                       boolean shardedWeights, ContextParallel cpKind, ExpertExchange experts) {
        this.shardUses = shardedWeights ? new HashMap<>() : null;
        this.cost = cost;
        this.topology = topology;
        this.stages = split.stages();
        this.tp = cost.tp();
        this.cp = cost.cp();
        TransformerModel m = cost.model();
        this.kvBytes = Math.round((double) cost.microBatch() * cost.seqLen() * m.keyValueWidth() / tp * 2);
        this.split = split;
        this.activationBytes = activationBytes;
        this.sequenceParallel = cost.seqParallel() && cost.tp() > 1;
        this.cpKind = cpKind;
        this.experts = experts;
        this.plans = new GroupPlans(topology, m.experts());
        this.attentionInputBytes = Math.round((double) activationBytes * m.attentionInputWidth() / m.hidden());
        int moe = m.experts() == null ? -1 : m.experts().denseLayers();
        double tokens = (double) cost.microBatch() * cost.seqLen() / cp;
        this.dispatchBytes = moe < 0 ? 0 : Math.round(tokens / tp * m.experts().routedPerToken() * m.hidden() * 2);
        this.routedBytes = moe < 0 ? 0 : Math.round(tokens * (m.experts().routedPerToken()
                + (m.experts().shared() > 0 ? 1 : 0)) * m.hidden() * 2);
        this.selectiveRecompute = cost.recompute() == LayerCostModel.Recompute.SELECTIVE;
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

    /** How a block's time in a pass splits over its ops, built once per block and pass. */
    private OpBreakdown ops(LayerCostModel.Block b, Pass p) {
        OpBreakdown[] byPass = breakdowns.computeIfAbsent(b, k -> new OpBreakdown[Pass.values().length]);
        if (byPass[p.ordinal()] == null) {
            List<String> names = new ArrayList<>(b.ops().size());
            double[] ns = new double[b.ops().size()];
            for (int i = 0; i < ns.length; i++) {
                LayerCostModel.OpTime t = b.ops().get(i);
                names.add(t.op());
                ns[i] = switch (p) {
                    case F -> t.fNs();
                    case BI -> t.biNs();
                    case W -> t.wNs();
                    case B -> t.biNs() + t.wNs();
                };
            }
            byPass[p.ordinal()] = new OpBreakdown(names, ns);
        }
        return byPass[p.ordinal()];
    }

    /** A layer's blocks as one (for the passes that run them as one task). */
    private LayerCostModel.Block whole(LayerCostModel.Block[] blocks) {
        return wholeLayers.computeIfAbsent(blocks, k -> {
            LayerCostModel.Block sum = blocks[0];
            for (int i = 1; i < blocks.length; i++) {
                sum = sum.plus(blocks[i]);
            }
            return sum;
        });
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

        /** A block's pass, with its split over ops for the trace. */
        int compute(String name, String category, LayerCostModel.Block b, Pass p) {
            int id = graph.computeOn(name, category, compute, Math.round(ns(b, p)), flops(b, p) * devices.length,
                    ops(b, p));
            link(id);
            return id;
        }

        /** A TP collective of activations, in each of the rank's CP groups at once. */
        void collective(String name, CollectiveOp op) {
            collective(name, op, activationBytes);
        }

        void collective(String name, CollectiveOp op, long bytes) {
            if (tp == 1) {
                return;
            }
            Work.Communication work = merged.computeIfAbsent("tp/" + op + "/" + bytes + "/" + devices[0], k -> {
                List<Work.Communication> parts = new ArrayList<>();
                for (int c = 0; c < cp; c++) {
                    parts.add(plans.plan("tp", op, java.util.Arrays.copyOfRange(devices, c * tp, (c + 1) * tp), bytes));
                }
                return Work.Communication.concurrent(parts);
            });
            link(graph.communicate(name, "tp-comm", streams("tp"), work));
        }

        /**
         * An MoE all-to-all (token dispatch or combine) over every GPU's expert-parallel group:
         * the flows this rank's GPUs send, or with a stand-in replica the whole groups' flows.
         */
        void exchange(String name) {
            if (experts == null) {
                return;
            }
            Work.Communication work = merged.computeIfAbsent("ep/" + devices[0], k -> {
                List<Work.Communication> parts = new ArrayList<>();
                for (int device : devices) {
                    for (int[] group : experts.groupsOf().apply(device)) {
                        Work.Communication all = plans.plan("ep", CollectiveOp.ALL_TO_ALL, group, dispatchBytes);
                        parts.add(experts.standIn() ? all : GroupPlans.sentBy(all, device));
                    }
                }
                return Work.Communication.concurrent(parts);
            });
            link(graph.communicate(name, "ep-comm", streams("ep"), work));
        }

        /**
         * Ring attention's core: c steps, step i computing on the i-th K/V block while the ring
         * passes that block on to the next CP rank, on the CP stream, so each step waits only for
         * its block. In the backward the K/V gradients accumulated in step i travel after it
         * (overlapping step i + 1), and the last transfer returns them to their owners before the
         * rank goes on.
         */
        void ring(String name, String category, double coreNs, double coreFlops, boolean backward) {
            long blockBytes = kvBytes / cp;
            int[] cpStreams = streams("cp");
            int before = last;
            int arrived = -1;
            int gradients = -1;
            for (int i = 0; i < cp; i++) {
                int step = graph.computeOn(name + " step" + i, category, compute, Math.round(coreNs / cp),
                        coreFlops / cp * devices.length);
                if (arrived >= 0) {
                    graph.addDependency(step, arrived);
                }
                link(step);
                if (i < cp - 1) {
                    int kv = graph.communicate(name + " ring kv" + i, "cp-comm", cpStreams, ringShift(blockBytes));
                    if (arrived >= 0) {
                        graph.addDependency(kv, arrived);
                    } else if (before >= 0) {
                        graph.addDependency(kv, before);
                    }
                    arrived = kv;
                }
                if (backward) {
                    gradients = graph.communicate(name + " ring dkv" + i, "cp-comm", cpStreams, ringShift(blockBytes));
                    if (i < cp - 1) {
                        graph.addDependency(gradients, step);
                    }
                }
            }
            if (backward) {
                link(gradients);
            }
        }

        /** One ring step: every GPU sends a block to its next CP neighbour, in each TP rank's CP group. */
        private Work.Communication ringShift(long bytes) {
            List<org.clustersim.core.engine.Flow> flows = new ArrayList<>();
            for (int t = 0; t < tp; t++) {
                for (int c = 0; c < cp; c++) {
                    flows.add(new org.clustersim.core.engine.Flow(devices[c * tp + t],
                            devices[((c + 1) % cp) * tp + t], bytes));
                }
            }
            return new Work.Communication(List.of(new Phase(flows)));
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
                parts.add(plans.plan("cp", op, group, bytes));
            }
            link(graph.communicate(name, "cp-comm", streams("cp"), Work.Communication.concurrent(parts)));
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
            chain.compute(label + " embed", cat, embedding, p);
        }
        if (backward && stage == stages - 1) {
            int id = chain.compute(label + " logits", cat, logits, p);
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
            chain.compute(label + " logits", cat, logits, p);
        }
        int[] ready = grads.stream().mapToInt(Integer::intValue).toArray();
        return new Emitted(chain.first, chain.last, ready);
    }

    /** Each rank's ZeRO-3 weight uses in program order, keyed by the first device of its TP group. */
    Map<Integer, List<ShardUse>> shardUses() {
        return shardUses;
    }

    /** The tasks of layer {@code l} in pass {@code p}: blocks, TP/CP/EP collectives, recompute replay. */
    private void emitLayer(Chain chain, Pass p, int l, String label, String cat, List<Integer> grads) {
        boolean moe = cost.model().isMoeLayer(l);
        LayerKind kind = kind(l);
        LayerCostModel.Block[] blocks = kind.layer();
        boolean exchanges = moe && experts != null;
        if (p == Pass.W || (chain.devices.length == 1 && !exchanges)) {
            // no collective between the blocks: one task per layer
            int id = chain.compute(label + " L" + l, cat, whole(blocks), p);
            if (p == Pass.W || p == Pass.B) {
                grads.add(id);
            }
            return;
        }
        String at = label + " L" + l;
        boolean backward = p != Pass.F;
        boolean replayed = backward && fullRecompute;
        if (replayed) {
            // replay the layer's forward, collectives included, then run the backward proper
            blocks = kind.base();
            attention(chain, Pass.F, blocks[0], kind.core(), at + " attn recompute", cat, true);
            mlp(chain, Pass.F, blocks, at, " recompute", cat);
        }
        int lastCompute;
        if (backward) {
            mlp(chain, p, blocks, at, "", cat);
            lastCompute = attention(chain, p, blocks[0], kind.core(), at + " attn", cat, !replayed);
        } else {
            attention(chain, p, blocks[0], kind.core(), at + " attn", cat, true);
            lastCompute = mlp(chain, p, blocks, at, "", cat);
        }
        if (p == Pass.B) {
            grads.add(lastCompute);
        }
    }

    /**
     * The attention block: with sequence parallelism an all-gather before it; with context
     * parallelism the K/V exchange (all-gather before, gradient reduce-scatter after the
     * backward, or the ring steps overlapping the core); the TP reduction after it. With latent
     * attention the exchange on the block's input side (the forward's all-gather, the
     * backward's input-gradient reduction) carries the latents rather than b s h.
     *
     * @param core     the block's attention core, for ring attention's steps
     * @param gatherKv whether the all-gather variant fetches K/V (not again after a replay)
     * @return the block's last compute task
     */
    private int attention(Chain chain, Pass p, LayerCostModel.Block block, LayerCostModel.Block core, String name,
                          String cat, boolean gatherKv) {
        boolean backward = p != Pass.F;
        if (sequenceParallel) {
            chain.collective("tp-ag " + name, CollectiveOp.ALL_GATHER, backward ? activationBytes : attentionInputBytes);
        }
        int id;
        if (cp > 1 && cpKind == ContextParallel.RING) {
            // the core in ring steps; the rest of the block (norm, projections) around it
            double coreNs = ns(core, p) + (backward && selectiveRecompute ? core.fNs() : 0);
            double coreFlops = flops(core, p) + (backward && selectiveRecompute
                    ? core.fFlops() : 0);
            double restNs = ns(block, p) - coreNs;
            double restFlops = flops(block, p) - coreFlops;
            if (backward) {
                chain.ring(name + " core", cat, coreNs, coreFlops, true);
                id = chain.compute(name, cat, restNs, restFlops);
            } else {
                chain.compute(name, cat, restNs, restFlops);
                chain.ring(name + " core", cat, coreNs, coreFlops, false);
                id = chain.last;
            }
        } else {
            if (gatherKv) {
                // keys and values of the whole sequence before attention (Llama 3's CP
                // all-gather), gathered again for the backward rather than kept
                chain.context("cp-ag kv " + name, CollectiveOp.ALL_GATHER, kvBytes);
            }
            id = chain.compute(name, cat, block, p);
            if (backward) {
                // their gradients go back to the ranks that own them
                chain.context("cp-rs dkv " + name, CollectiveOp.REDUCE_SCATTER, kvBytes);
            }
        }
        chain.collective((sequenceParallel ? "tp-rs " : "tp-ar ") + name,
                sequenceParallel ? CollectiveOp.REDUCE_SCATTER : CollectiveOp.ALL_REDUCE,
                backward ? attentionInputBytes : activationBytes);
        return id;
    }

    /**
     * The MLP block. Dense: as the attention block's TP collectives. MoE (Megatron-LM's
     * all-to-all token dispatcher): the router on the rank's tokens, the EP all-to-all
     * dispatch of its 1/t share, a TP all-gather of the routed tokens, the experts, a TP
     * reduce-scatter, the all-to-all combine, and without sequence parallelism a TP
     * all-gather that makes the output whole on every TP rank again. The backward runs the
     * same exchanges in the reverse direction.
     *
     * @return the block's last compute task
     */
    private int mlp(Chain chain, Pass p, LayerCostModel.Block[] blocks, String at, String suffix, String cat) {
        if (blocks.length == 2) {
            String name = at + " mlp" + suffix;
            if (sequenceParallel) {
                chain.collective("tp-ag " + name, CollectiveOp.ALL_GATHER);
            }
            int id = chain.compute(name, cat, blocks[1], p);
            chain.collective((sequenceParallel ? "tp-rs " : "tp-ar ") + name,
                    sequenceParallel ? CollectiveOp.REDUCE_SCATTER : CollectiveOp.ALL_REDUCE);
            return id;
        }
        boolean backward = p != Pass.F;
        String router = at + " router" + suffix;
        String experts = at + " experts" + suffix;
        int routerTask = -1;
        if (!backward) {
            routerTask = chain.compute(router, cat, blocks[1], p);
        }
        chain.exchange("ep-a2a " + (backward ? "combine-grad " : "dispatch ") + experts);
        chain.collective("tp-ag routed " + experts, CollectiveOp.ALL_GATHER, routedBytes);
        int expertTask = chain.compute(experts, cat, blocks[2], p);
        chain.collective("tp-rs routed " + experts, CollectiveOp.REDUCE_SCATTER, routedBytes);
        chain.exchange("ep-a2a " + (backward ? "dispatch-grad " : "combine ") + experts);
        if (backward) {
            routerTask = chain.compute(router, cat, blocks[1], p);
        }
        if (!sequenceParallel) {
            chain.collective((backward ? "tp-ar " : "tp-ag ") + experts,
                    backward ? CollectiveOp.ALL_REDUCE : CollectiveOp.ALL_GATHER);
        }
        return backward ? routerTask : expertTask;
    }

    /**
     * An overlapped pair (DualPipe) runs two independent chains, the forward of one microbatch
     * and the backward of another, sharing the rank's GPUs: their compute tasks alternate on the
     * compute stream, block by block, so each chain's communication (TP collectives, the MoE
     * all-to-alls, CP exchanges) runs while the other chain computes. The compute time is the
     * sum of both; what is saved is the communication the other chain hides.
     */
    @Override
    public Overlap emitOverlapped(TaskGraph.Builder graph, int[] devices, int rank, int forwardStage,
                                  int backwardStage, String label) {
        int start = graph.taskCount();
        List<ShardUse> uses = shardUses == null ? null : shardUses.computeIfAbsent(devices[0], k -> new ArrayList<>());
        int firstUse = uses == null ? 0 : uses.size();
        Emitted f = emit(graph, devices, rank, forwardStage,
                new PipelineOp.Action(ActionKind.FORWARD, 0, 0), label + " F");
        int middle = graph.taskCount();
        Emitted b = emit(graph, devices, rank, backwardStage,
                new PipelineOp.Action(ActionKind.BACKWARD, 0, 0), label + " B");
        int[] order = alternate(graph, start, middle, graph.taskCount());
        graph.resequence(start, order);
        if (uses != null) {
            // ZeRO-3 gathers and reductions run in the rank's new program order too
            int[] position = new int[order.length];
            for (int i = 0; i < order.length; i++) {
                position[order[i] - start] = i;
            }
            List<ShardUse> mine = new ArrayList<>(uses.subList(firstUse, uses.size()));
            mine.sort(java.util.Comparator.comparingInt(u -> position[(u.user >= 0 ? u.user : u.gradsDone) - start]));
            for (int i = 0; i < mine.size(); i++) {
                uses.set(firstUse + i, mine.get(i));
            }
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
