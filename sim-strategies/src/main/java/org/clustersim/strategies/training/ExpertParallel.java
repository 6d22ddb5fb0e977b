package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

import org.clustersim.core.engine.Work;
import org.clustersim.strategies.collective.CollectiveOp;
import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.model.TransformerModel;

/**
 * An MoE layer's MLP block under expert parallelism, as Megatron-LM's all-to-all token
 * dispatcher runs it: the router on the rank's tokens, the all-to-all dispatch of each GPU's
 * 1/t share over its expert-parallel group, a TP all-gather of the routed tokens, the experts, a
 * TP reduce-scatter, the all-to-all combine, and without sequence parallelism a TP all-gather
 * that makes the output whole on every TP rank again. The backward runs the same exchanges in
 * the reverse direction. Without expert parallelism the all-to-alls are left out.
 */
final class ExpertParallel {
    private final Groups groups;
    private final TensorParallel tensor;
    private final GroupPlans plans;
    /** One GPU's routed tokens as dispatched (its 1/t share), bf16: the all-to-all's size. */
    private final long dispatchBytes;
    /** The routed (and shared-expert) tokens the TP group gathers for the experts, bf16. */
    private final long routedBytes;
    private final Map<Integer, Work.Communication> merged = new HashMap<>();

    /**
     * Where an MoE layer's tokens go: {@code groupsOf} gives the expert-parallel groups a GPU's
     * all-to-all stands for. With {@code standIn} one replica is simulated for all: its task
     * carries every member's flows of every EP group at the GPU's mesh position (the other
     * replicas' groups exchange at the same time); otherwise the GPU's own group, and each
     * replica's task carries only the flows its own GPUs send (the others' tasks carry the rest).
     */
    record Groups(IntFunction<List<int[]>> groupsOf, boolean standIn) {
    }

    /** @param groups the expert-parallel groups, or null without expert parallelism */
    ExpertParallel(LayerCostModel cost, Groups groups, TensorParallel tensor, GroupPlans plans) {
        this.groups = groups;
        this.tensor = tensor;
        this.plans = plans;
        TransformerModel.Experts e = cost.model().experts();
        double tokens = (double) cost.microBatch() * cost.seqLen() / cost.cp();
        this.dispatchBytes = e == null ? 0 : Math.round(tokens / cost.tp() * e.routedPerToken() * cost.model().hidden() * 2);
        this.routedBytes = e == null ? 0 : Math.round(tokens * (e.routedPerToken() + (e.shared() > 0 ? 1 : 0))
                * cost.model().hidden() * 2);
    }

    /** Whether MoE layers exchange tokens between GPUs (else their blocks need no exchange of their own). */
    boolean exchanges() {
        return groups != null;
    }

    /**
     * The MoE MLP block in pass {@code p}: {@code blocks} are the layer's attention, router and
     * experts blocks.
     *
     * @return the block's last compute task
     */
    int mlp(Chain chain, Pass p, LayerCostModel.Block[] blocks, String at, String suffix, String cat) {
        boolean backward = p.backward();
        String router = at + " router" + suffix;
        String experts = at + " experts" + suffix;
        int routerTask = -1;
        if (!backward) {
            routerTask = chain.compute(router, cat, blocks[1], p);
        }
        exchange(chain, "ep-a2a " + (backward ? "combine-grad " : "dispatch ") + experts);
        tensor.collective(chain, "tp-ag routed " + experts, CollectiveOp.ALL_GATHER, routedBytes);
        int expertTask = chain.compute(experts, cat, blocks[2], p);
        tensor.collective(chain, "tp-rs routed " + experts, CollectiveOp.REDUCE_SCATTER, routedBytes);
        exchange(chain, "ep-a2a " + (backward ? "dispatch-grad " : "combine ") + experts);
        if (backward) {
            routerTask = chain.compute(router, cat, blocks[1], p);
        }
        if (!tensor.sequenceParallel()) {
            tensor.collective(chain, (backward ? "tp-ar " : "tp-ag ") + experts,
                    backward ? CollectiveOp.ALL_REDUCE : CollectiveOp.ALL_GATHER, tensor.activationBytes());
        }
        return backward ? routerTask : expertTask;
    }

    /**
     * An all-to-all (token dispatch or combine) over every GPU's expert-parallel group: the
     * flows this rank's GPUs send, or with a stand-in replica the whole groups' flows.
     */
    private void exchange(Chain chain, String name) {
        if (groups == null) {
            return;
        }
        int[] devices = chain.devices();
        Work.Communication work = merged.computeIfAbsent(devices[0], k -> {
            List<Work.Communication> parts = new ArrayList<>();
            for (int device : devices) {
                for (int[] group : groups.groupsOf().apply(device)) {
                    Work.Communication all = plans.plan("ep", CollectiveOp.ALL_TO_ALL, group, dispatchBytes);
                    parts.add(groups.standIn() ? all : GroupPlans.sentBy(all, device));
                }
            }
            return Work.Communication.concurrent(parts);
        });
        chain.communicate(name, "ep-comm", "ep", work);
    }
}
