package org.clustersim.strategies.training;

import java.util.Optional;

/**
 * What one ZeRO-3 framework does its own way ({@link Zero3Impl} names it in scenarios, and
 * {@link Zero3Impl#framework} gives its implementation): the default type of reduced gradients,
 * which options and layouts it takes, what it holds unsharded in memory, and, per step, which
 * gathers each layer pass issues and waits for and how completed gradients are reduced.
 * Everything the frameworks share (recording the uses in program order, adding the all-gathers
 * per gradient group, the copy kernels' streams) stays in {@link ShardedWeights}; adding a
 * framework means one class implementing this and one enum constant.
 */
interface ShardingFramework {
    /** Bytes of a reduced gradient element when the scenario names no type. */
    int defaultReduceBytes(int mainGradBytes);

    /** Whether the framework can keep a block's gathered weights from its forward to its backward. */
    boolean keepsGatheredWeightsAfterForward();

    /**
     * Why the framework's ZeRO 3 cannot run with pipeline parallelism (more than one stage or
     * chunk per rank), empty when it can.
     */
    Optional<String> pipelineRefusal();

    /** Bytes of gathered bf16 weights on a GPU of pipeline rank {@code p} of {@code step} at their peak. */
    double gatheredWeightBytes(TrainingStep step, int p);

    /** Bytes of unsharded gradient buffers on one GPU of {@code step} during the backward. */
    double gradientBufferBytes(TrainingStep step);

    /** The framework's state while {@code step}'s pipelines are emitted (one per step built). */
    Gathers gathers(TrainingStep step);

    /** Per step: what each layer pass gathers, and how gradients are reduced. */
    interface Gathers {
        /**
         * Pass {@code p} (forward or backward, never W) of layer {@code layer} by the rank whose
         * group starts at {@code firstDevice}; {@code previousStart} ends when the layer before
         * starts, {@code start} when this one may start.
         */
        ShardedWeights.Use use(int firstDevice, int layer, Pass p, int previousStart, int start);

        /** Stream time of gather {@code g}'s copy-in kernels on the gather stream (0: none). */
        double copyInNs(ShardedWeights.Gather g);

        /** The reductions of one gradient group, emitted through {@code out}. */
        Reductions reductions(ShardCollectives out);
    }

    /** One gradient group's reductions, fed the layers whose gradients complete in program order. */
    interface Reductions {
        /**
         * Layer {@code layer}'s weight gradients completed after {@code done} (one task per
         * replica): reduce them (now or with later layers).
         */
        void add(int layer, int[] done);
    }
}
