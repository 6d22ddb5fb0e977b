package org.clustersim.strategies.training;

/**
 * The parallel layout of a training step: how its GPUs are arranged, how ZeRO shards the model
 * states, how activations are split along the sequence, and how the step communicates. Built by
 * {@link LayoutBuilder}; its cross-field rules are {@link LayoutRules}.
 *
 * @param mesh             the device mesh: TP, CP, PP, DP (and EP inside DP) sizes and their order
 * @param zero             ZeRO stage, hybrid shard group and ZeRO-3 implementation
 * @param sequenceParallel Megatron sequence parallelism
 * @param cpKind           how context parallelism exchanges keys and values
 * @param comm             gradient buckets and the communication overlap options
 */
public record Layout(Mesh mesh, ZeroSharding zero, boolean sequenceParallel, ContextParallel cpKind,
                     Communication comm) {

    public Layout {
        java.util.Objects.requireNonNull(mesh, "mesh");
        if (zero == null) {
            zero = ZeroSharding.NONE;
        }
        if (cpKind == null) {
            cpKind = ContextParallel.ALL_GATHER;
        }
        if (comm == null) {
            comm = Communication.DEFAULTS;
        }
    }

    /**
     * A builder of a layout alone ({@link LayoutBuilder#layout()}), for a reader that knows the
     * layout before the model and cluster; {@link TrainingStep#builder} builds whole steps.
     */
    public static LayoutBuilder builder() {
        return new LayoutBuilder(null, null);
    }
}
