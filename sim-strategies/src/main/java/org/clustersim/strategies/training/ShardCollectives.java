package org.clustersim.strategies.training;

import java.util.List;

import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskTag;
import org.clustersim.strategies.collective.CollectiveOp;

/**
 * The tasks ZeRO 3 adds for one gradient group (the GPUs holding the same shards): copy kernels
 * on the gather or reduction stream, reduce-scatters, accumulations into the sharded gradient,
 * and the list of reductions the optimizer step waits for. What every {@link ShardingFramework}
 * emits through, so their task graphs differ only in what they ask for.
 */
final class ShardCollectives {
    /** Copy kernels of the gathers and reductions, outside any pass. */
    private static final TaskTag COPY = TaskTag.NONE.shardCopy();
    private final TrainingStep step;
    private final DataParallelCollectives dpc;
    private final int[] group;
    private final List<Integer> optimizerWaits;

    ShardCollectives(TrainingStep step, DataParallelCollectives dpc, int[] group, List<Integer> optimizerWaits) {
        this.step = step;
        this.dpc = dpc;
        this.group = group;
        this.optimizerWaits = optimizerWaits;
    }

    /** A copy kernel's {@code ns} on stream {@code stream} of every GPU of the group, after {@code after}. */
    int copy(String name, String stream, double ns, int... after) {
        int[] streams = new int[group.length];
        for (int i = 0; i < group.length; i++) {
            streams[i] = dpc.graph().stream(group[i], stream, StreamKind.COMMUNICATION);
        }
        int c = dpc.graph().computeOn(name, COPY, streams, Math.round(ns), 0);
        for (int a : after) {
            dpc.graph().addDependency(c, a);
        }
        return c;
    }

    /** An all-gather of {@code params} elements per GPU after {@code deps}, on the gather stream. */
    int gather(String name, double params, int[] deps) {
        return dpc.gather(name, group, step.shardSize(), Math.round(params * step.weightGatherBytes()), deps,
                "fsdp-ag");
    }

    /** A reduce-scatter of {@code numel} gradient elements of {@code reduceBytes} after {@code deps}. */
    int reduceScatter(String name, double numel, int reduceBytes, int[] deps) {
        return dpc.reduce(name, CollectiveOp.REDUCE_SCATTER, group, step.shardSize(), Math.round(numel * reduceBytes),
                deps, "fsdp-rs");
    }

    /**
     * The reduced shard added to the fp32 sharded gradient, one kernel per parameter: the shard
     * read in the reduce type, the gradient read and written in fp32.
     */
    int accumulate(String name, double numel, int tensors, int reduceBytes, int after) {
        double shard = numel / step.shardSize();
        return copy(name + " accumulate", "fsdp-rs", step.kernels().memory((reduceBytes + 8.0) * shard, tensors),
                after);
    }

    /** Makes the optimizer step wait for {@code task}, a reduction's last task. */
    void optimizerWaitsFor(int task) {
        optimizerWaits.add(task);
    }
}
