package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.clustersim.core.engine.TaskTag;
import org.clustersim.core.engine.Work;
import org.clustersim.strategies.collective.CollectiveOp;

/**
 * Tensor parallelism's collectives around a transformer block (Megatron-LM): after each
 * block's forward and input-gradient pass an all-reduce of the b s h activations, or with
 * sequence parallelism an all-gather before the block and a reduce-scatter after it.
 * Weight-gradient passes need none. A collective runs in each of the rank's CP groups of tp
 * GPUs at once, as one task; nothing runs when tp is 1.
 */
final class TensorParallel {
    private final int tp;
    private final int cp;
    private final boolean sequenceParallel;
    private final long activationBytes;
    private final GroupPlans plans;
    /** The rank-wide communications merged from the groups' plans, by operation, size and first device. */
    private final Map<Key, Work.Communication> merged = new HashMap<>();
    /** The ring steps of TP overlap, made once per rank, size and exchange. */
    private final SharedPlans shared = new SharedPlans();

    /** A merged plan's identity: the operation, its size and the rank's first GPU (a key built as text cost a string per task). */
    private record Key(CollectiveOp op, long bytes, int firstDevice) {
    }

    /**
     * @param tp               tensor-parallel size
     * @param cp               context-parallel size: a rank's GPUs are cp groups of tp
     * @param sequenceParallel Megatron sequence parallelism (ignored when tp is 1)
     * @param activationBytes  b s h of one CP rank's tokens, bf16: what a block's collectives carry
     * @param plans            the step's collective plans
     */
    TensorParallel(int tp, int cp, boolean sequenceParallel, long activationBytes, GroupPlans plans) {
        this.tp = tp;
        this.cp = cp;
        this.sequenceParallel = sequenceParallel && tp > 1;
        this.activationBytes = activationBytes;
        this.plans = plans;
    }

    boolean sequenceParallel() {
        return sequenceParallel;
    }

    long activationBytes() {
        return activationBytes;
    }

    /** Before a block: with sequence parallelism, the all-gather of its {@code bytes} of input. */
    void gather(Chain chain, String name, long bytes) {
        if (sequenceParallel) {
            collective(chain, "tp-ag " + name, CollectiveOp.ALL_GATHER, bytes);
        }
    }

    /** After a block: the reduction of its {@code bytes} of output, a reduce-scatter with sequence parallelism. */
    void reduce(Chain chain, String name, long bytes) {
        collective(chain, (sequenceParallel ? "tp-rs " : "tp-ar ") + name,
                sequenceParallel ? CollectiveOp.REDUCE_SCATTER : CollectiveOp.ALL_REDUCE, bytes);
    }

    /**
     * XLA's asynchronous form of {@link #gather}: the all-gather waits for task {@code after}
     * only, beside the chain.
     *
     * @return its task, or {@code after} without sequence parallelism (nothing to gather)
     */
    int gatherBeside(Chain chain, String name, long bytes, int after) {
        if (!sequenceParallel || tp == 1) {
            return after;
        }
        return chain.launch("tp-ag " + name, TaskTag.Traffic.TENSOR, "tp",
                work(chain.devices(), CollectiveOp.ALL_GATHER, bytes), after);
    }

    /**
     * XLA's asynchronous form of {@link #reduce}: the reduction waits for task {@code after}
     * only, beside the chain.
     *
     * @return its task, or -1 when tp is 1
     */
    int reduceBeside(Chain chain, String name, long bytes, int after) {
        if (tp == 1) {
            return -1;
        }
        return chain.launch((sequenceParallel ? "tp-rs " : "tp-ar ") + name, TaskTag.Traffic.TENSOR, "tp",
                work(chain.devices(), sequenceParallel ? CollectiveOp.REDUCE_SCATTER : CollectiveOp.ALL_REDUCE,
                        bytes), after);
    }

    /** A TP collective of {@code bytes}, in each of the rank's CP groups at once. */
    void collective(Chain chain, String name, CollectiveOp op, long bytes) {
        if (tp == 1) {
            return;
        }
        chain.communicate(name, TaskTag.Traffic.TENSOR, "tp", work(chain.devices(), op, bytes));
    }

    /** The work of a TP collective of {@code bytes} over the rank's GPUs {@code devices}, each CP group at once. */
    Work.Communication work(int[] devices, CollectiveOp op, long bytes) {
        return merged.computeIfAbsent(new Key(op, bytes, devices[0]), k -> {
            List<Work.Communication> parts = new ArrayList<>();
            for (int c = 0; c < cp; c++) {
                parts.add(plans.plan("tp", op, Arrays.copyOfRange(devices, c * tp, (c + 1) * tp), bytes));
            }
            return Work.Communication.concurrent(parts);
        });
    }

    int tp() {
        return tp;
    }

    /** The rank-wide communications other than collectives (TP overlap's ring steps), shared between tasks. */
    SharedPlans shared() {
        return shared;
    }

    int cp() {
        return cp;
    }
}
