package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;

import org.clustersim.core.engine.TaskTag;
import org.clustersim.core.engine.Work;
import org.clustersim.strategies.collective.CollectiveOp;
import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.model.TransformerModel;

/**
 * An MoE layer's MLP block under expert parallelism, as Megatron-core's all-to-all token
 * dispatcher runs it ({@code megatron/core/transformer/moe/token_dispatcher.py},
 * {@code MoEAlltoAllTokenDispatcher}): the router on the GPU's own (sequence-parallel) tokens,
 * the all-to-all dispatch of each GPU's 1/t share over its expert-parallel group, an all-gather
 * of the routed tokens over the expert TP group ({@code gather_from_sequence_parallel_region}
 * on {@code expt_tp}), the experts, a reduce-scatter over the expert TP group, the all-to-all
 * combine, and without sequence parallelism a TP all-gather that makes the output whole on
 * every TP rank again. The groups are those of the {@link ExpertMesh} folded over the stage's
 * GPUs. With expert TP equal to TP the shared experts' input rides in the same TP gather; with
 * an expert TP of its own the shared experts (a dense MLP split over the attention's TP group)
 * gather and reduce-scatter over the TP group separately. The backward runs the same exchanges
 * in the reverse direction. Without expert parallelism the all-to-alls are left out. With the
 * all-to-all dispatcher ({@link org.clustersim.strategies.cost.MoeDispatcher#ALLTOALL}) the
 * forward first all-gathers every GPU's per-expert token counts over the EP group (the split
 * sizes, which the host then reads back: the router block's host synchronisation), and sends the
 * tokens' fp32 probabilities in an all-to-all of their own after the tokens' (and their gradient
 * after the input gradients' in the backward).
 */
final class ExpertParallel {
    private final Groups groups;
    private final TensorParallel tensor;
    private final GroupPlans plans;
    /** Expert TP size, and whether it is the attention's TP group (one gather carries everything). */
    private final int etp;
    private final boolean etpIsTp;
    /** One GPU's routed tokens as dispatched (its 1/t share), bf16: the all-to-all's size. */
    private final long dispatchBytes;
    /** The routed (and, with etp = tp, shared-expert) tokens the expert TP group gathers, bf16. */
    private final long routedBytes;
    /** With an expert TP of its own: the shared experts' input the attention's TP group gathers, bf16. */
    private final long sharedBytes;
    /** With the all-to-all dispatcher, the per-expert token counts each GPU all-gathers over its EP group (int64). */
    private final long countBytes;
    /**
     * With the all-to-all dispatcher, the routed tokens' probabilities (fp32), which follow the
     * tokens in an all-to-all of their own (token_dispatch's second all_to_all; its gradient's
     * in the backward); DeepEP and HybridEP carry them inside their dispatch.
     */
    private final long probBytes;
    private final Map<String, Work.Communication> merged = new HashMap<>();
    /** The merged expert-TP collective per operation and first GPU of the group. */
    private final Map<MergedKey, Work.Communication> mergedEtp = new HashMap<>();

    private record MergedKey(CollectiveOp op, int firstDevice) {
    }

    /**
     * Where an MoE layer's tokens go: {@code groupsOf} gives the expert-parallel groups a GPU's
     * all-to-all stands for. With {@code standIn} one replica is simulated for all: its task
     * carries every member's flows of every EP group of the stage that holds a GPU at the mesh
     * position of one of the rank's GPUs (each group once; the other replicas' groups exchange at
     * the same time); otherwise the GPU's own group, and each replica's task carries only the
     * flows its own GPUs send (the others' tasks carry the rest).
     */
    record Groups(IntFunction<List<int[]>> groupsOf, boolean standIn) {
    }

    /** @param groups the expert-parallel groups, or null without expert parallelism */
    ExpertParallel(LayerCostModel cost, Groups groups, TensorParallel tensor, GroupPlans plans) {
        this.groups = groups;
        this.tensor = tensor;
        this.plans = plans;
        this.etp = cost.etp();
        this.etpIsTp = cost.etp() == cost.tp();
        TransformerModel.Experts e = cost.model().experts();
        double tokens = (double) cost.microBatch() * cost.seqLen() / cost.cp();
        this.dispatchBytes = e == null ? 0 : Math.round(tokens / cost.tp() * e.routedPerToken() * cost.model().hidden() * 2);
        // gather_from_sequence_parallel_region(num_local_tokens_per_expert): experts x 8 bytes from each EP rank
        this.countBytes = e == null || !cost.dispatcher().exchangesCounts() ? 0 : 8L * e.count() * cost.ep();
        this.probBytes = countBytes == 0 ? 0 : Math.round(tokens / cost.tp() * e.routedPerToken() * 4);
        if (etpIsTp) {
            this.routedBytes = e == null ? 0 : Math.round(tokens * (e.routedPerToken() + (e.shared() > 0 ? 1 : 0))
                    * cost.model().hidden() * 2);
            this.sharedBytes = 0;
        } else {
            // each of the etp GPUs contributes the tokens it received, as many as it dispatched
            this.routedBytes = dispatchBytes * etp;
            this.sharedBytes = e == null || e.shared() == 0 ? 0 : Math.round(tokens * cost.model().hidden() * 2);
        }
    }

    /** The bytes one GPU dispatches in each all-to-all (its 1/t share of the routed tokens, bf16). */
    long dispatchBytes() {
        return dispatchBytes;
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
    int mlp(Chain chain, Pass p, LayerCostModel.Block[] blocks, String at, String suffix) {
        boolean backward = p.backward();
        String router = at + " router" + suffix;
        String experts = at + " experts" + suffix;
        int routerTask = -1;
        if (!backward) {
            routerTask = chain.compute(router, blocks[1], p);
            if (countBytes > 0) {
                exchange(chain, "ep-ag counts " + experts, CollectiveOp.ALL_GATHER, countBytes);
            }
        }
        exchange(chain, "ep-a2a " + (backward ? "combine-grad " : "dispatch ") + experts);
        if (!backward && probBytes > 0) {
            exchange(chain, "ep-probs a2a " + experts, CollectiveOp.ALL_TO_ALL, probBytes);
        }
        routed(chain, experts, CollectiveOp.ALL_GATHER);
        int expertTask = chain.compute(experts, blocks[2], p);
        routed(chain, experts, CollectiveOp.REDUCE_SCATTER);
        exchange(chain, "ep-a2a " + (backward ? "dispatch-grad " : "combine ") + experts);
        if (backward && probBytes > 0) {
            exchange(chain, "ep-probs-grad a2a " + experts, CollectiveOp.ALL_TO_ALL, probBytes);
        }
        if (backward) {
            routerTask = chain.compute(router, blocks[1], p);
        }
        if (!tensor.sequenceParallel()) {
            tensor.collective(chain, (backward ? "tp-ar " : "tp-ag ") + experts,
                    backward ? CollectiveOp.ALL_REDUCE : CollectiveOp.ALL_GATHER, tensor.activationBytes());
        }
        return backward ? routerTask : expertTask;
    }

    /**
     * The routed tokens' gather (or the outputs' reduce-scatter) over the expert TP group; with
     * an expert TP of its own, the shared experts' over the attention's TP group follows.
     */
    private void routed(Chain chain, String experts, CollectiveOp op) {
        String kind = op == CollectiveOp.ALL_GATHER ? "ag" : "rs";
        if (etpIsTp) {
            tensor.collective(chain, "tp-" + kind + " routed " + experts, op, routedBytes);
            return;
        }
        if (etp > 1) {
            int[] devices = chain.devices();
            Work.Communication work = mergedEtp.computeIfAbsent(new MergedKey(op, devices[0]), k -> {
                List<Work.Communication> parts = new ArrayList<>();
                for (int start = 0; start < devices.length; start += etp) {
                    parts.add(plans.plan("etp", op, Arrays.copyOfRange(devices, start, start + etp), routedBytes));
                }
                return Work.Communication.concurrent(parts);
            });
            chain.communicate("etp-" + kind + " routed " + experts, TaskTag.Traffic.EXPERT_TENSOR, "tp", work);
        }
        if (sharedBytes > 0) {
            tensor.collective(chain, "tp-" + kind + " shared " + experts, op, sharedBytes);
        }
    }

    /**
     * An all-to-all (token dispatch or combine) over every GPU's expert-parallel group: the
     * flows this rank's GPUs send, or with a stand-in replica the whole groups' flows, each
     * group once.
     */
    private void exchange(Chain chain, String name) {
        exchange(chain, name, CollectiveOp.ALL_TO_ALL, dispatchBytes);
    }

    /** A collective of {@code bytes} over every GPU's expert-parallel group (see {@link #exchange(Chain, String)}). */
    private void exchange(Chain chain, String name, CollectiveOp op, long bytes) {
        if (groups == null) {
            return;
        }
        int[] devices = chain.devices();
        Work.Communication work = merged.computeIfAbsent(op + " " + bytes + " " + devices[0], k -> {
            List<Work.Communication> parts = new ArrayList<>();
            Set<Integer> seen = new HashSet<>();
            for (int device : devices) {
                for (int[] group : groups.groupsOf().apply(device)) {
                    if (groups.standIn() && !seen.add(group[0])) {
                        continue;
                    }
                    Work.Communication all = plans.plan("ep", op, group, bytes);
                    parts.add(groups.standIn() ? all : GroupPlans.sentBy(all, device));
                }
            }
            return Work.Communication.concurrent(parts);
        });
        chain.communicate(name, TaskTag.Traffic.EXPERT_ALL_TO_ALL, "ep", work);
    }
}
