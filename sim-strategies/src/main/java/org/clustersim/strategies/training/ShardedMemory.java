package org.clustersim.strategies.training;

/**
 * What ZeRO 3 holds unsharded on one GPU besides the shards, as its framework
 * ({@link ShardingFramework}) says: gathered bf16 weights and the gradient buffers of the layers
 * being reduced.
 *
 * <ul>
 *   <li>Megatron-FSDP: two units (layers) of weights and two of unsharded main gradients, the
 *       double buffers ("at least two FSDP units worth of un-sharded weight memory ... of
 *       un-sharded gradient memory", docs/user-guide/features/megatron_fsdp.md).</li>
 *   <li>FSDP2: the blocks held unsharded (the one computing with reshard after forward; every
 *       block of the rank from its forward to its backward without) plus two all-gather output
 *       buffers (the current one stays referenced until the next block's copy-in, see "Overlapping
 *       all-gather copy-in and all-gather" in _fsdp_param_group.py); in the backward one block's
 *       bf16 gradients and two reduce-scatter inputs in {@code reduce_dtype} (the previous one is
 *       kept in {@code reduce_scatter_state} until the next is issued).</li>
 *   <li>DeepSpeed: the most parameters its coordinator holds gathered over a micro-step
 *       ({@link DeepSpeedCoordinator#peakLive}, at most about {@code max_live_parameters} plus the
 *       reuse window); the contiguous reduce bucket of {@code reduce_bucket_size} elements in
 *       {@code communication_data_type}, allocated once, and one layer's bf16 gradients.</li>
 * </ul>
 */
final class ShardedMemory {
    private final TrainingStep step;

    ShardedMemory(TrainingStep step) {
        this.step = step;
    }

    /** Bytes of gathered bf16 weights on a GPU of pipeline rank {@code p} at their peak. */
    double gatheredWeightBytes(int p) {
        return step.sharding().impl().framework().gatheredWeightBytes(step, p);
    }

    /** Bytes of unsharded gradient buffers on one GPU during the backward. */
    double gradientBufferBytes() {
        return step.sharding().impl().framework().gradientBufferBytes(step);
    }
}
