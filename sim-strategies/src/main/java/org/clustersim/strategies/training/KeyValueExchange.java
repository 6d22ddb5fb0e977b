package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.engine.Flow;
import org.clustersim.core.engine.Phase;
import org.clustersim.core.engine.TaskTag;
import org.clustersim.core.engine.Work;
import org.clustersim.strategies.collective.CollectiveOp;
import org.clustersim.strategies.cost.LayerCostModel;

/**
 * Context parallelism in the attention block: how the c GPUs that split a sequence share its
 * keys and values ({@link ContextParallel}). All-gather: the whole sequence's K/V before the
 * block, gathered again for the backward rather than kept, and their gradients reduce-scattered
 * back to their owners after it. Ring: the attention core in c steps, each on the K/V block in
 * hand while the ring passes the next one on. Nothing is exchanged when cp is 1.
 */
final class KeyValueExchange {
    private final int tp;
    private final int cp;
    private final ContextParallel kind;
    /** Keys and values of the whole sequence on one TP rank, bf16: the all-gather's size. */
    private final long kvBytes;
    private final boolean selectiveRecompute;
    private final GroupPlans plans;
    /** The ring steps and merged CP collectives, made once per rank (they recur every layer and microbatch). */
    private final SharedPlans shared = new SharedPlans();

    KeyValueExchange(LayerCostModel cost, ContextParallel kind, GroupPlans plans) {
        this.tp = cost.tp();
        this.cp = cost.cp();
        this.kind = kind;
        this.kvBytes = Math.round((double) cost.microBatch() * cost.seqLen() * cost.model().keyValueWidth() / tp * 2);
        this.selectiveRecompute = cost.recompute() == LayerCostModel.Recompute.SELECTIVE;
        this.plans = plans;
    }

    /**
     * The attention block's compute with its K/V exchange.
     *
     * @param core     the block's attention core, for ring attention's steps
     * @param gatherKv whether the all-gather variant fetches K/V (not again after a replay)
     * @return the block's last compute task
     */
    int attend(Chain chain, Pass p, LayerCostModel.Block block, LayerCostModel.Block core, String name,
               boolean gatherKv) {
        boolean backward = p.backward();
        if (cp > 1 && kind == ContextParallel.RING) {
            // the core in ring steps; the rest of the block (norm, projections) around it
            double coreNs = p.ns(core) + (backward && selectiveRecompute ? core.fNs() : 0);
            double coreFlops = p.flops(core) + (backward && selectiveRecompute ? core.fFlops() : 0);
            double restNs = p.ns(block) - coreNs;
            double restFlops = p.flops(block) - coreFlops;
            if (backward) {
                ring(chain, name + " core", coreNs, coreFlops, true);
                return chain.compute(name, restNs, restFlops);
            }
            chain.compute(name, restNs, restFlops);
            ring(chain, name + " core", coreNs, coreFlops, false);
            return chain.last();
        }
        if (gatherKv) {
            // keys and values of the whole sequence before attention (Llama 3's CP all-gather)
            collective(chain, "cp-ag kv " + name, CollectiveOp.ALL_GATHER);
        }
        int id = chain.compute(name, block, p);
        if (backward) {
            // their gradients go back to the ranks that own them
            collective(chain, "cp-rs dkv " + name, CollectiveOp.REDUCE_SCATTER);
        }
        return id;
    }

    /**
     * Ring attention's core: c steps, step i computing on the i-th K/V block while the ring
     * passes that block on to the next CP rank, on the CP stream, so each step waits only for
     * its block. In the backward the K/V gradients accumulated in step i travel after it
     * (overlapping step i + 1), and the last transfer returns them to their owners before the
     * rank goes on.
     */
    private void ring(Chain chain, String name, double coreNs, double coreFlops, boolean backward) {
        long blockBytes = kvBytes / cp;
        int[] cpStreams = chain.streams("cp");
        var graph = chain.graph();
        TaskTag exchange = chain.tag().carrying(TaskTag.Traffic.CONTEXT);
        int before = chain.last();
        int arrived = -1;
        int gradients = -1;
        for (int i = 0; i < cp; i++) {
            int step = chain.computeAfter(name + " step" + i, coreNs / cp, coreFlops / cp, arrived);
            if (i < cp - 1) {
                int kv = graph.communicate(name + " ring kv" + i, exchange, cpStreams, ringShift(chain, blockBytes));
                if (arrived >= 0) {
                    graph.addDependency(kv, arrived);
                } else if (before >= 0) {
                    graph.addDependency(kv, before);
                }
                arrived = kv;
            }
            if (backward) {
                gradients = graph.communicate(name + " ring dkv" + i, exchange, cpStreams,
                        ringShift(chain, blockBytes));
                if (i < cp - 1) {
                    graph.addDependency(gradients, step);
                }
            }
        }
        if (backward) {
            chain.link(gradients);
        }
    }

    /** One ring step: every GPU sends a block to its next CP neighbour, in each TP rank's CP group. */
    private Work.Communication ringShift(Chain chain, long bytes) {
        return shared.of("ring", chain.devices(), bytes, () -> ringShift(chain.devices(), bytes));
    }

    private Work.Communication ringShift(int[] devices, long bytes) {
        List<Flow> flows = new ArrayList<>();
        for (int t = 0; t < tp; t++) {
            for (int c = 0; c < cp; c++) {
                flows.add(new Flow(devices[c * tp + t], devices[((c + 1) % cp) * tp + t], bytes));
            }
        }
        return new Work.Communication(List.of(new Phase(flows))).asSends();
    }

    /** A CP collective of keys and values, over the CP group of each TP rank at once. */
    private void collective(Chain chain, String name, CollectiveOp op) {
        if (cp == 1) {
            return;
        }
        int[] devices = chain.devices();
        chain.communicate(name, TaskTag.Traffic.CONTEXT, "cp", shared.of(op, devices, kvBytes, () -> {
            List<Work.Communication> parts = new ArrayList<>();
            for (int t = 0; t < tp; t++) {
                int[] group = new int[cp];
                for (int c = 0; c < cp; c++) {
                    group[c] = devices[c * tp + t];
                }
                parts.add(plans.plan("cp", op, group, kvBytes));
            }
            return Work.Communication.concurrent(parts);
        }));
    }
}
